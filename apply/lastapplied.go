package apply

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/merge"
)

// totalAnnotationSizeLimit is the apiserver's limit on the sum of annotation key and value sizes.
const totalAnnotationSizeLimit = 256 * (1 << 10)

// stringAnnotations reads metadata.annotations as Unstructured.GetAnnotations does: nil when
// absent or when any value is not a string.
func stringAnnotations(obj map[string]any) map[string]string {
	raw, ok := metadataOf(obj)["annotations"].(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		out[k] = s
	}
	return out
}

func hasLastApplied(obj map[string]any) bool {
	return stringAnnotations(obj)[merge.LastAppliedAnnotation] != ""
}

// withAnnotations returns a copy of obj (shallow except metadata) whose annotations are a; nil
// removes metadata.annotations, as Unstructured.SetAnnotations does.
func withAnnotations(obj map[string]any, a map[string]string) map[string]any {
	out := make(map[string]any, len(obj)+1)
	for k, v := range obj {
		out[k] = v
	}
	md := metadataOf(obj)
	nmd := make(map[string]any, len(md)+1)
	for k, v := range md {
		nmd[k] = v
	}
	if a == nil {
		delete(nmd, "annotations")
		if md == nil {
			return out
		}
	} else {
		m := make(map[string]any, len(a))
		for k, v := range a {
			m[k] = v
		}
		nmd["annotations"] = m
	}
	out["metadata"] = nmd
	return out
}

// setLastApplied is the apiserver's lastAppliedUpdater: the annotation is rewritten from the
// applied config (without the annotation itself), JSON with a trailing newline; it is dropped
// when the annotations would exceed the size limit. It is not merge.LastAppliedConfiguration,
// kubectl's side of the same annotation: the server reads annotations as
// Unstructured.GetAnnotations (nil when a value is not a string) and removes an empty map
// (SetAnnotations(nil)), where kubectl's accessor keeps "annotations": {} and fails on a
// non-string value.
func setLastApplied(obj, config map[string]any) (map[string]any, error) {
	ca := stringAnnotations(config)
	if ca != nil {
		delete(ca, merge.LastAppliedAnnotation)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(withAnnotations(config, ca)); err != nil {
		return nil, fmt.Errorf("failed to build last-applied annotation: couldn't encode object into last applied annotation: %v", err)
	}
	a := stringAnnotations(obj)
	if a == nil {
		a = map[string]string{}
	}
	a[merge.LastAppliedAnnotation] = buf.String()
	var size int64
	for k, v := range a {
		size += int64(len(k)) + int64(len(v))
	}
	if size > totalAnnotationSizeLimit {
		delete(a, merge.LastAppliedAnnotation)
	}
	return withAnnotations(obj, a), nil
}

// allowedConflictsFromLastApplied is lastAppliedManager's set of fields kubectl may take over
// when upgrading from client-side apply: the fields of the last-applied configuration whose live
// value still matches it.
func (e *engine) allowedConflictsFromLastApplied(live map[string]any) (*fieldpath.Set, error) {
	lastApplied := stringAnnotations(live)[merge.LastAppliedAnnotation]
	if lastApplied == "" {
		return nil, errors.New("no last applied annotation")
	}
	liveVersioned, err := e.toVersioned(live)
	if err != nil {
		return nil, err
	}
	liveTyped, err := e.types.ObjectToTyped(liveVersioned)
	if err != nil {
		return nil, err
	}
	var last map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts([]byte(lastApplied), &last); err != nil {
		return nil, err
	}
	if k, _ := last["kind"].(string); k == "" {
		return nil, errors.New("object 'Kind' is missing")
	}
	if av, _ := last["apiVersion"].(string); av != string(e.gv) {
		return nil, errors.New("expected version of last applied to match live object")
	}
	lastTyped, err := e.configToTyped(last)
	if err != nil {
		return nil, err
	}
	set, err := lastTyped.ToFieldSet()
	if err != nil {
		return nil, err
	}
	cmp, err := lastTyped.Compare(liveTyped)
	if err != nil {
		return nil, err
	}
	return set.Difference(cmp.Modified).Difference(cmp.Added).Difference(cmp.Removed), nil
}
