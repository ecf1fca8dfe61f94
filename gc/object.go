package gc

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Object is one Kubernetes object in the library's object model: a map holding only nil, bool,
// int64, float64, string, []any and map[string]any.
type Object = map[string]any

// Ref names one object: its apiVersion, kind, namespace (empty for cluster-scoped objects), name
// and uid. It is a comparable value; the zero Ref names nothing.
type Ref struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	UID        string `json:"uid,omitempty"`
}

// String prints the ref as kind/name (namespace/kind/name for namespaced objects).
func (r Ref) String() string {
	if r.Namespace != "" {
		return r.Namespace + "/" + r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Name
}

// ownerReference is one entry of metadata.ownerReferences, as the garbage collector reads it.
type ownerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// blocking reports whether the reference has blockOwnerDeletion: true.
func (o ownerReference) blocking() bool { return o.BlockOwnerDeletion != nil && *o.BlockOwnerDeletion }

// coordinates prints the reference the way the garbage collector's objectReference does:
// [apiVersion/kind, namespace: ns, name: n, uid: u].
func coordinates(o ownerReference, namespace string) string {
	return fmt.Sprintf("[%s/%s, namespace: %s, name: %s, uid: %s]", o.APIVersion, o.Kind, namespace, o.Name, o.UID)
}

// The finalizers the apiserver and the garbage collector own.
const (
	// FinalizerOrphan is metav1.FinalizerOrphanDependents.
	FinalizerOrphan = "orphan"
	// FinalizerForeground is metav1.FinalizerDeleteDependents.
	FinalizerForeground = "foregroundDeletion"
	// FinalizerKubernetes is the namespace controller's token in a namespace's spec.finalizers.
	FinalizerKubernetes = "kubernetes"
)

// meta is the part of an object the deletion machinery reads, decoded once.
type meta struct {
	apiVersion, kind, namespace, name, uid, resourceVersion string
	generation                                              int64
	deletionTimestamp                                       string
	deletionGrace                                           *int64
	finalizers                                              []string
	owners                                                  []ownerReference
	ownerErrs                                               []string
}

func (m *meta) ref() Ref {
	return Ref{APIVersion: m.apiVersion, Kind: m.kind, Namespace: m.namespace, Name: m.name, UID: m.uid}
}

func (m *meta) deleting() bool { return m.deletionTimestamp != "" }

func (m *meta) hasFinalizer(f string) bool {
	for _, x := range m.finalizers {
		if x == f {
			return true
		}
	}
	return false
}

// readMeta decodes the metadata the package needs. Malformed values are reported in errs rather
// than panicking; a malformed ownerReferences entry is kept out of owners and described in
// ownerErrs.
func readMeta(obj Object) (meta, error) {
	return readMetaFrom(obj, nil)
}

// readMetaFrom is readMeta taking the ownerReferences' storage from the block *refs (when not
// nil), allocating a new block when it is used up: one allocation for many objects.
func readMetaFrom(obj Object, refs *[]ownerReference) (meta, error) {
	var m meta
	if obj == nil {
		return m, fmt.Errorf("object is nil")
	}
	m.apiVersion, _ = obj["apiVersion"].(string)
	m.kind, _ = obj["kind"].(string)
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		if _, present := obj["metadata"]; present {
			return m, fmt.Errorf("metadata: must be an object")
		}
		md = map[string]any{}
	}
	var err error
	if m.namespace, err = optString(md, "namespace"); err != nil {
		return m, fmt.Errorf("metadata.%w", err)
	}
	if m.name, err = optString(md, "name"); err != nil {
		return m, fmt.Errorf("metadata.%w", err)
	}
	if m.uid, err = optString(md, "uid"); err != nil {
		return m, fmt.Errorf("metadata.%w", err)
	}
	if m.resourceVersion, err = optString(md, "resourceVersion"); err != nil {
		return m, fmt.Errorf("metadata.%w", err)
	}
	if m.deletionTimestamp, err = optString(md, "deletionTimestamp"); err != nil {
		return m, fmt.Errorf("metadata.%w", err)
	}
	if g, present := md["generation"]; present && g != nil {
		n, ok := asInt(g)
		if !ok {
			return m, fmt.Errorf("metadata.generation: must be an integer")
		}
		m.generation = n
	}
	if g, present := md["deletionGracePeriodSeconds"]; present && g != nil {
		n, ok := asInt(g)
		if !ok {
			return m, fmt.Errorf("metadata.deletionGracePeriodSeconds: must be an integer")
		}
		m.deletionGrace = &n
	}
	if f, present := md["finalizers"]; present && f != nil {
		list, ok := f.([]any)
		if !ok {
			return m, fmt.Errorf("metadata.finalizers: must be a list of strings")
		}
		for i, x := range list {
			s, ok := x.(string)
			if !ok {
				return m, fmt.Errorf("metadata.finalizers[%d]: must be a string", i)
			}
			m.finalizers = append(m.finalizers, s)
		}
	}
	if f, present := md["ownerReferences"]; present && f != nil {
		list, ok := f.([]any)
		if !ok {
			return m, fmt.Errorf("metadata.ownerReferences: must be a list")
		}
		if refs != nil && len(list) <= 64 {
			if len(*refs) < len(list) {
				*refs = make([]ownerReference, 1024)
			}
			m.owners, *refs = (*refs)[:0:len(list)], (*refs)[len(list):]
		} else {
			m.owners = make([]ownerReference, 0, len(list))
		}
		for i, x := range list {
			ref, err := readOwnerRef(x)
			if err != nil {
				m.ownerErrs = append(m.ownerErrs, fmt.Sprintf("metadata.ownerReferences[%d]: %v", i, err))
				continue
			}
			m.owners = append(m.owners, ref)
		}
	}
	return m, nil
}

func readOwnerRef(x any) (ownerReference, error) {
	var o ownerReference
	m, ok := x.(map[string]any)
	if !ok {
		return o, fmt.Errorf("must be an object")
	}
	var err error
	if o.APIVersion, err = optString(m, "apiVersion"); err != nil {
		return o, err
	}
	if o.Kind, err = optString(m, "kind"); err != nil {
		return o, err
	}
	if o.Name, err = optString(m, "name"); err != nil {
		return o, err
	}
	if o.UID, err = optString(m, "uid"); err != nil {
		return o, err
	}
	if o.Controller, err = optBool(m, "controller"); err != nil {
		return o, err
	}
	if o.BlockOwnerDeletion, err = optBool(m, "blockOwnerDeletion"); err != nil {
		return o, err
	}
	return o, nil
}

func optString(m map[string]any, k string) (string, error) {
	v, present := m[k]
	if !present || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: must be a string", k)
	}
	return s, nil
}

var boolTrue, boolFalse = true, false

func optBool(m map[string]any, k string) (*bool, error) {
	v, present := m[k]
	if !present || v == nil {
		return nil, nil
	}
	b, ok := v.(bool)
	if !ok {
		return nil, fmt.Errorf("%s: must be a boolean", k)
	}
	if b {
		return &boolTrue, nil
	}
	return &boolFalse, nil
}

// validateOwnerRefs mirrors apimachinery's ValidateOwnerReferences: the errors kube-apiserver
// answers when an object with these references is written.
func validateOwnerRefs(m *meta) []string {
	var errs []string
	errs = append(errs, m.ownerErrs...)
	first := -1
	for i, r := range m.owners {
		if r.APIVersion == "" {
			errs = append(errs, refPath(i)+".apiVersion: Required value: must not be empty")
		} else if _, v := splitAPIVersion(r.APIVersion); v == "" || strings.Count(r.APIVersion, "/") > 1 {
			errs = append(errs, fmt.Sprintf("%s.apiVersion: Invalid value: %q: must be <group>/<version> or <version>", refPath(i), r.APIVersion))
		}
		if r.Kind == "" {
			errs = append(errs, refPath(i)+".kind: Required value: must not be empty")
		}
		if r.Name == "" {
			errs = append(errs, refPath(i)+".name: Required value: must not be empty")
		}
		if r.UID == "" {
			errs = append(errs, refPath(i)+".uid: Required value: must not be empty")
		}
		if r.APIVersion == "v1" && r.Kind == "Event" {
			b, _ := json.Marshal(r)
			errs = append(errs, fmt.Sprintf("%s: Invalid value: %s: /v1, Kind=Event is disallowed from being an owner", refPath(i), b))
		}
		if r.Controller != nil && *r.Controller {
			if first >= 0 {
				b, _ := json.Marshal(m.owners)
				f := m.owners[first]
				errs = append(errs, fmt.Sprintf("metadata.ownerReferences: Invalid value: %s: Only one reference can have Controller set to true. Found \"true\" in references for %s and %s", b, f.Kind+"/"+f.Name, r.Kind+"/"+r.Name))
			} else {
				first = i
			}
		}
	}
	return errs
}

// refPath is the field path of the i-th ownerReference, built only for an error.
func refPath(i int) string { return "metadata.ownerReferences[" + strconv.Itoa(i) + "]" }

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	}
	return 0, false
}

// withMeta returns a copy of obj sharing everything but the top-level map and metadata, whose
// entries set replaces (a nil value removes the key). Shared subtrees are never mutated.
func withMeta(obj Object, set map[string]any) Object {
	out := make(Object, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	md := map[string]any{}
	if old, ok := obj["metadata"].(map[string]any); ok {
		for k, v := range old {
			md[k] = v
		}
	}
	for k, v := range set {
		if v == nil {
			delete(md, k)
		} else {
			md[k] = v
		}
	}
	out["metadata"] = md
	return out
}

func stringList(s []string) any {
	if len(s) == 0 {
		return nil
	}
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func ownerList(refs []ownerReference) any {
	if len(refs) == 0 {
		return nil
	}
	out := make([]any, len(refs))
	for i, r := range refs {
		m := map[string]any{"apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name, "uid": r.UID}
		if r.Controller != nil {
			m["controller"] = *r.Controller
		}
		if r.BlockOwnerDeletion != nil {
			m["blockOwnerDeletion"] = *r.BlockOwnerDeletion
		}
		out[i] = m
	}
	return out
}

// formatTime prints a time as metav1.Time does (RFC 3339, seconds, UTC).
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// splitAPIVersion returns the group and version of an apiVersion ("v1" → "", "v1").
func splitAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}
