// Package value holds the helpers every writepath package uses on the object model: the one deep
// copy, semantic equality, and get/set/remove by path.
//
// A value is nil, bool, int64, float64, string, []any or map[string]any, nested freely; an
// object is a map[string]any. Validate checks that a value stays inside this model. Equal has
// the semantics of apimachinery's equality.Semantic.DeepEqual on unstructured content: int64(1)
// and float64(1) differ (as they do to the apiserver, which compares decoded objects), while a
// nil and an empty map (or list) are equal. EqualNilDistinct tells them apart (the store's
// DeepEqualWithNilDifferentFromEmpty). A Path is a sequence of map keys and list indices,
// rendered like field.Path ("spec.containers[0].image").
//
// There is one deep copy, in three strengths: DeepCopy (and DeepCopyMap) checks the model as it
// copies; Clone copies the maps and lists and shares every other value, for trees that may hold
// immutable foreign leaves (decoded quantities) or are known to be well formed; RoundTripJSON
// copies as an encode and decode through encoding/json would (an integral float64 becomes int64,
// a nil map or list null), what the patch handlers' objects look like.
// FromGo (and FromGoMap) copies a value built in Go into the model: every integer kind becomes
// int64 and float32 float64, where DeepCopy refuses them.
//
// # Usage
//
//	c, err := value.DeepCopyMap(obj)
//	shared := value.Clone(decoded)       // maps and lists fresh, leaves shared
//	rt, err := value.RoundTripJSON(obj)  // float64(2) is int64(2)
//	m := value.FromGoMap(map[string]any{"replicas": 3}) // int(3) is int64(3)
//	same := value.Equal(oldObj, newObj)
//	img, found, err := value.Get(obj, value.NewPath("spec", "containers").Index(0).Key("image"))
//	obj2, err := value.SetMap(obj, value.NewPath("metadata", "labels", "app"), "web")
//	obj3, removed, err := value.Remove(obj2, value.NewPath("metadata", "labels", "app"))
//	err = value.Walk(obj, func(p value.Path, v any) error { ...; return nil })
//
// # Invariants
//
//   - Nothing here modifies its input. DeepCopy results share no map or list with the input.
//     Set and Remove copy only the spine (the maps and lists along the path) and share every
//     other subtree with the input, and Set stores its argument as given: treat results as
//     read-only or DeepCopy them first. Get returns a reference into its input.
//   - Pure and concurrency-safe; Walk visits map keys in sorted order, so everything is
//     deterministic.
//   - Never panics: Go types outside the model make DeepCopy and Validate return a *TypeError
//     and make Equal report false; a NaN or infinite float64 fails Validate (it has no JSON
//     encoding). Recursion stops at MaxDepth (100000 levels, ten times what any decoder accepts),
//     so a cyclic or absurdly deep value built in code is a *DepthError (Equal: false), not a
//     stack overflow.
//
// # Errors
//
// *TypeError (500 InternalError: a caller built a value outside the model) names the path of
// the offending value; *DepthError (500) reports nesting beyond MaxDepth or a cycle. *PathError (400 BadRequest) reports a path step that does not fit: a key
// applied to a non-map, an index to a non-list, an index out of range for Set, or an attempt to
// remove the root. A missing key is not an error: Get reports found=false, Remove removed=false,
// and Set creates the missing maps as unstructured.SetNestedField does.
package value
