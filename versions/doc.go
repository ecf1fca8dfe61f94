// Package versions holds kube-apiserver's rules for the versions of an object:
// resourceVersion comparison (KEP-5504), write preconditions, optimistic
// concurrency on update, and metadata.generation — its value after a create, an
// update of the main resource, a write through /status or /scale, and a
// deletion — plus observedGeneration helpers. The reference is Kubernetes 1.37:
// k8s.io/apimachinery/pkg/util/resourceversion, k8s.io/apiserver's storage and
// generic registry, and the REST strategies of k8s.io/kubernetes/pkg/registry
// and apiextensions-apiserver.
//
// The model: a Strategy describes one resource (Builtin, BuiltinResource,
// CustomResource, StrategyFor): its name and subresources from schema's
// catalogue with the facts of its REST strategy (schema.Strategy: the generation
// rule, unconditional updates, deletion); this package applies them. Functions take the stored object and the object
// a request would write, both in the object model (map[string]any with int64
// integers), and return what kube-apiserver would store or the error it would
// answer, as a *status.Error carrying the apiserver's code, reason and words.
//
// # Usage
//
//	s, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
//	if _, err := versions.CheckUpdate(s, stored, sent); err != nil {
//		// 409: Operation cannot be fulfilled on deployments.apps "web": the object has been modified; ...
//	}
//	g, _ := versions.NextGeneration(s, stored, sent, "")
//	fmt.Println(g) // 1 -> 2: spec.replicas changed; Deployment bumps metadata.generation ...
//
//	n, err := versions.CompareResourceVersion("99", "100") // -1, nil
//
// SemanticEqual is the typed equality the generation rules use (apimachinery's
// equality.Semantic.DeepEqual on built-in objects) and CompareQuantity compares
// resource quantities by value; other packages' strategy checks reuse both.
//
// Custom API servers whose resourceVersions are not decimal use a Comparator:
// Decimal (kube-apiserver), EqualityOnly (opaque versions), DecimalOrEquality.
//
// # Invariants
//
//   - Pure: no clock, no randomness, no I/O, no package state that changes.
//   - Inputs are never modified and results share no memory with them; all
//     functions are safe for concurrent use.
//   - Generation rules assume both objects are as the server sees them: after
//     decoding and defaulting, in the same API version. Built-in objects are
//     compared like typed Go structs (absent, null, "", {} and [] are equal;
//     numbers by value; quantities under resources limits/requests, capacity,
//     allocatable, hard, used, overhead and sizeLimit by value, so "0.5" equals
//     "500m"); custom resources like unstructured content (types must match;
//     null, absent and {} differ). Without a schema, a map field is recognised
//     by name (labels, annotations, data, ...), and a quantity elsewhere is
//     compared as a string.
//
// # Errors
//
// Server answers are *status.Error values (status.CodeOf, status.ReasonOf):
// 409 Conflict for preconditions and stale resourceVersions, 422 Invalid for an
// update without resourceVersion where the strategy requires one, a bare 500
// (no reason, as the apiserver sends it) for an update whose resourceVersion is
// not a number and for a create that carries one (CheckCreate). An
// input that is not an object of the model (metadata not a map, generation not
// an integer) yields a *field.Error naming the path. CompareResourceVersion
// fails with *InvalidResourceVersionError, whose text is apimachinery's.
package versions
