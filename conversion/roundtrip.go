package conversion

import (
	"fmt"
	"sort"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/value"
)

// ChangeKind says how a field differs after a round trip.
type ChangeKind string

const (
	// Lost: the field was there before and is gone.
	Lost ChangeKind = "lost"
	// Changed: the field is there with another value.
	Changed ChangeKind = "changed"
	// Added: the field was not there before.
	Added ChangeKind = "added"
)

// Change is one field that a round trip did not preserve.
type Change struct {
	// Path is the field ("spec.legacy", "spec.items[2].name").
	Path   string
	Kind   ChangeKind
	Before any `json:",omitempty"`
	After  any `json:",omitempty"`
}

func (c Change) String() string {
	switch c.Kind {
	case Lost:
		return fmt.Sprintf("%s: lost (was %s)", c.Path, short(c.Before))
	case Added:
		return fmt.Sprintf("%s: added (%s)", c.Path, short(c.After))
	}
	return fmt.Sprintf("%s: changed from %s to %s", c.Path, short(c.Before), short(c.After))
}

func short(v any) string {
	b, err := marshalCompact(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

// RoundTrip is the outcome of one round trip of one object.
type RoundTrip struct {
	// Object is "namespace/name" (or "name").
	Object string
	// Path lists the versions the object went through ("v1alpha1", "v1", "v1alpha1").
	Path []string
	// Changes are the fields not preserved, in path order; empty when the trip is lossless.
	Changes []Change
	// Err is a conversion failure on the way (Changes is then empty).
	Err error
}

// Lossless reports whether the round trip preserved everything.
func (r RoundTrip) Lossless() bool { return r.Err == nil && len(r.Changes) == 0 }

// CheckRoundTrip checks what the apiserver never checks: whether conversions lose data. For
// each object (at the version of its apiVersion, taken as the apiserver decodes it there) it
// runs A → storage → A when A is not the storage version, and storage → B → storage for every
// other served version B, each conversion followed by the pruning the apiserver applies, and
// reports every lost, changed or added field. objs are not modified.
func (c *Converter) CheckRoundTrip(objs []map[string]any) []RoundTrip {
	var out []RoundTrip
	s := c.crd.StorageVersion()
	for _, obj := range objs {
		name := objectName(obj)
		a := gvkOf(obj).Version
		a0, err := c.coerce(obj)
		if err != nil {
			out = append(out, RoundTrip{Object: name, Path: []string{a}, Err: err})
			continue
		}
		stored, err := c.hop(a0, s)
		if err != nil {
			out = append(out, RoundTrip{Object: name, Path: []string{a, s}, Err: err})
			continue
		}
		if a != s {
			back, err := c.hop(stored, a)
			rt := RoundTrip{Object: name, Path: []string{a, s, a}, Err: err}
			if err == nil {
				rt.Changes = Diff(a0, back)
			}
			out = append(out, rt)
		}
		for _, v := range c.crd.Schema.Versions {
			if v.Name == s || !v.Served {
				continue
			}
			rt := RoundTrip{Object: name, Path: []string{s, v.Name, s}}
			mid, err := c.hop(stored, v.Name)
			if err == nil {
				var back map[string]any
				if back, err = c.hop(mid, s); err == nil {
					rt.Changes = Diff(stored, back)
				}
			}
			rt.Err = err
			out = append(out, rt)
		}
	}
	return out
}

// ConvertAndPrune is one conversion as the apiserver's storage codec makes it
// (schemaCoercingConverter): Convert, then the target version's coercion — metadata through
// ObjectMeta, pruning by its structural schema, non-nullable nulls dropped, embedded metadata
// normalised. obj is not modified.
func (c *Converter) ConvertAndPrune(obj map[string]any, version string) (map[string]any, error) {
	return c.hop(obj, version)
}

func (c *Converter) hop(obj map[string]any, version string) (map[string]any, error) {
	if c.crd.Strategy == StrategyNone && obj != nil {
		// Coercion returns fresh values: the object is converted on a shallow copy, and only
		// copied whole when no coercion applies.
		target, err := c.check(obj, version, false)
		if err != nil {
			return nil, err
		}
		shallow := make(map[string]any, len(obj)+2)
		for k, v := range obj {
			shallow[k] = v
		}
		setGVK(shallow, target)
		return c.coerce(shallow)
	}
	out, err := c.Convert(obj, version)
	if err != nil {
		return nil, err
	}
	return c.coerce(out)
}

func objectName(obj map[string]any) string {
	ns, name := metaString(obj, "namespace"), metaString(obj, "name")
	if ns != "" {
		return ns + "/" + name
	}
	return name
}

// Diff lists the fields of before that after does not preserve, ignoring apiVersion (which a
// conversion changes by design). Lists are compared item by item.
func Diff(before, after map[string]any) []Change {
	b := make(map[string]any, len(before))
	for k, v := range before {
		if k != "apiVersion" {
			b[k] = v
		}
	}
	a := make(map[string]any, len(after))
	for k, v := range after {
		if k != "apiVersion" {
			a[k] = v
		}
	}
	var out []Change
	diff(field.Path{}, b, a, &out)
	return out
}

func diff(p field.Path, before, after any, out *[]Change) {
	switch bv := before.(type) {
	case map[string]any:
		av, ok := after.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(bv)+len(av))
		for k := range bv {
			keys = append(keys, k)
		}
		for k := range av {
			if _, ok := bv[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			x, inB := bv[k]
			y, inA := av[k]
			switch {
			case !inA:
				*out = append(*out, Change{Path: p.Child(k).String(), Kind: Lost, Before: x})
			case !inB:
				*out = append(*out, Change{Path: p.Child(k).String(), Kind: Added, After: y})
			default:
				diff(p.Child(k), x, y, out)
			}
		}
		return
	case []any:
		av, ok := after.([]any)
		if !ok {
			break
		}
		for i := 0; i < len(bv) || i < len(av); i++ {
			switch {
			case i >= len(av):
				*out = append(*out, Change{Path: p.Index(i).String(), Kind: Lost, Before: bv[i]})
			case i >= len(bv):
				*out = append(*out, Change{Path: p.Index(i).String(), Kind: Added, After: av[i]})
			default:
				diff(p.Index(i), bv[i], av[i], out)
			}
		}
		return
	}
	if !value.Equal(before, after) {
		*out = append(*out, Change{Path: p.String(), Kind: Changed, Before: before, After: after})
	}
}
