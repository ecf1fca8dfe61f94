package versions

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/writepath/writepath/field"
)

// GenerationChange is the metadata.generation a write leaves on an object, and
// why.
type GenerationChange struct {
	// Old is the generation before the write (0 on create).
	Old int64
	// New is the generation the server stores.
	New int64
	// Reason explains New in one sentence.
	Reason string
	// Changed lists up to five compared field paths that differ (the first in
	// path order), when an update bumped the generation.
	Changed []string
	// MoreChanged is true when more compared paths differ than Changed lists.
	MoreChanged bool
}

// Bumped reports whether the write increased the generation.
func (g GenerationChange) Bumped() bool { return g.New > g.Old }

// String renders "1 -> 2: <reason>".
func (g GenerationChange) String() string {
	return fmt.Sprintf("%d -> %d: %s", g.Old, g.New, g.Reason)
}

// generationOf reads metadata.generation: 0 when absent, an error when it is
// not an integer.
func generationOf(obj map[string]any, which string) (int64, error) {
	md, err := metadataOf(obj, which)
	if err != nil {
		return 0, err
	}
	switch g := md["generation"].(type) {
	case nil:
		return 0, nil
	case int64:
		return g, nil
	case float64:
		if g == float64(int64(g)) {
			return int64(g), nil
		}
	}
	return 0, field.Invalid(field.NewPath("metadata", "generation"), md["generation"], "must be an integer")
}

// metadataOf returns obj's metadata map (nil when absent) or an error when it
// is not an object.
func metadataOf(obj map[string]any, which string) (map[string]any, error) {
	if obj == nil {
		return nil, fmt.Errorf("%s object is missing", which)
	}
	switch md := obj["metadata"].(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return md, nil
	}
	return nil, field.Invalid(field.NewPath("metadata"), obj["metadata"], "must be an object")
}

// GenerationOnCreate returns the generation kube-apiserver stores for obj on
// create: 1 when the strategy sets it, otherwise what obj carries (the server
// keeps a client-supplied generation for types that do not track it; validation
// rejects a negative one). obj is not modified.
func GenerationOnCreate(s Strategy, obj map[string]any) (GenerationChange, error) {
	g, err := generationOf(obj, "new")
	if err != nil {
		return GenerationChange{}, err
	}
	if s.Generation.SetOnCreate {
		return GenerationChange{New: 1, Reason: fmt.Sprintf("%s sets metadata.generation to 1 on create", s.Kind)}, nil
	}
	if g < 0 {
		return GenerationChange{}, field.Invalid(field.NewPath("metadata", "generation"), g, "must be greater than or equal to 0")
	}
	return GenerationChange{New: g, Reason: fmt.Sprintf("%s does not set metadata.generation on create; the value sent is kept", s.Kind)}, nil
}

// NextGeneration returns the generation kube-apiserver stores after an update
// of old into new through subresource sub ("" for the main resource, "status",
// "scale", or a strategy's extra subresource such as pods' "resize").
//
// old is the stored object; new is the object the update handler has built (for
// a patch, the patched object), after defaulting — both in the same API
// version. The generation new carries is ignored, as the server ignores it: it
// starts from old's and adds 1 when a field the strategy compares changed.
// A /status write never bumps it; a /scale write bumps it when the replica
// count changes (scale goes through the main strategy, and only the replica
// count differs). Pods' "resize" and "ephemeralcontainers" bump it like the
// main resource, on any change of spec (updatePodGeneration), but their
// strategies first put back everything but the fields they write: pass new
// after that reset (apply.StrategyReset does both; recorded in
// testdata/apply/recorded/podresize, podephemeral, podgeneration). Neither
// input is modified.
func NextGeneration(s Strategy, old, new map[string]any, sub string) (GenerationChange, error) {
	return nextGeneration(s, old, new, sub, false)
}

// NextGenerationFirst is NextGeneration for a caller that needs the generation, not the list of
// what changed: the comparison stops at the first changed field, which Changed then holds
// alone (New and the error are NextGeneration's).
func NextGenerationFirst(s Strategy, old, new map[string]any, sub string) (GenerationChange, error) {
	return nextGeneration(s, old, new, sub, true)
}

func nextGeneration(s Strategy, old, new map[string]any, sub string, first bool) (GenerationChange, error) {
	oldGen, err := generationOf(old, "old")
	if err != nil {
		return GenerationChange{}, err
	}
	if _, err := metadataOf(new, "new"); err != nil {
		return GenerationChange{}, err
	}
	if !s.HasSubresource(sub) {
		return GenerationChange{}, &UnknownSubresourceError{Resource: s.GroupResource(), Subresource: sub}
	}
	keep := GenerationChange{Old: oldGen, New: oldGen}
	p := s.Generation
	if slices.Contains(s.BypassSubresources, sub) {
		keep.Reason = fmt.Sprintf("writes to %s/%s bypass the strategy and never change metadata.generation", s.GroupResource(), sub)
		return keep, nil
	}
	switch sub {
	case "status":
		keep.Reason = fmt.Sprintf("writes to %s/status never change metadata.generation", s.GroupResource())
		return keep, nil
	case "scale":
		oldR, okOld := lookup(old, s.SpecReplicasPath)
		newR, okNew := lookup(new, s.SpecReplicasPath)
		d := differ{unstructured: p.Unstructured}
		d.at(s.SpecReplicasPath)
		d.diff(oldR, newR, okOld, okNew)
		if len(d.changed) == 0 || !p.Tracked() {
			keep.Reason = fmt.Sprintf("the scale write leaves %s unchanged", s.SpecReplicasPath)
			if len(d.changed) != 0 {
				keep.Reason = s.Generation.Why
			}
			return keep, nil
		}
		return GenerationChange{Old: oldGen, New: oldGen + 1, Changed: d.changed,
			Reason: fmt.Sprintf("the scale write changes %s, and %s", s.SpecReplicasPath, p.Why)}, nil
	}
	if len(p.Compare) == 0 && p.AllExcept == nil {
		keep.Reason = p.Why
		if keep.Reason == "" {
			keep.Reason = fmt.Sprintf("%s does not track metadata.generation", s.Kind)
		}
		return keep, nil
	}
	d := differ{unstructured: p.Unstructured, ignore: p.Ignore, first: first}
	if p.AllExcept != nil {
		compareTopLevel(&d, old, new, p.AllExcept)
	}
	for _, c := range p.Compare {
		if first && len(d.changed) > 0 {
			break
		}
		a, okA := lookup(old, c)
		b, okB := lookup(new, c)
		d.at(c)
		d.diff(a, b, okA, okB)
	}
	if len(d.changed) == 0 {
		keep.Reason = fmt.Sprintf("no compared field changed; %s", p.Why)
		return keep, nil
	}
	return GenerationChange{Old: oldGen, New: oldGen + 1, Changed: d.changed, MoreChanged: d.more,
		Reason: fmt.Sprintf("%s changed; %s", strings.Join(d.changed, ", ")+moreSuffix(d.more), p.Why)}, nil
}

// compareTopLevel diffs every top-level field but apiVersion, kind and except.
func compareTopLevel(d *differ, old, new map[string]any, except []string) {
	skip := func(k string) bool {
		if k == "apiVersion" || k == "kind" {
			return true
		}
		for _, e := range except {
			if e == k {
				return true
			}
		}
		return false
	}
	a := map[string]any{}
	b := map[string]any{}
	for k, v := range old {
		if !skip(k) {
			a[k] = v
		}
	}
	for k, v := range new {
		if !skip(k) {
			b[k] = v
		}
	}
	// Diff the two maps key by key so that paths are rooted at the object.
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		va, oka := a[k]
		vb, okb := b[k]
		d.stack = append(d.stack[:0], field.Segment{Kind: field.SegmentChild, Name: k})
		d.diff(va, vb, oka, okb)
	}
}

func sortedKeys(m map[string]bool) []string {
	return slices.Sorted(maps.Keys(m))
}

func moreSuffix(more bool) string {
	if more {
		return ", ..."
	}
	return ""
}

// GenerationOnDelete returns the generation kube-apiserver stores when a delete
// request leaves obj in place marked for deletion (a graceful deletion with a
// grace period, or pending finalizers): the first time deletionTimestamp is set,
// a positive generation is bumped by 1 (k8s.io/apiserver registry/rest
// BeforeDelete for graceful deletion, the generic store's markAsDeleting for
// finalizers). A second delete of an object already marked, an object whose
// generation is 0, and namespaces (whose storage marks them itself) keep it.
// obj is the stored object before the delete; it is not modified.
func GenerationOnDelete(s Strategy, obj map[string]any) (GenerationChange, error) {
	g, err := generationOf(obj, "old")
	if err != nil {
		return GenerationChange{}, err
	}
	md, _ := metadataOf(obj, "old")
	keep := GenerationChange{Old: g, New: g}
	switch {
	case s.NoDeleteGenerationBump:
		keep.Reason = fmt.Sprintf("deleting a %s sets its deletionTimestamp without bumping metadata.generation", s.Kind)
	case md["deletionTimestamp"] != nil:
		keep.Reason = "the object is already marked for deletion (deletionTimestamp is set)"
	case g <= 0:
		keep.Reason = "metadata.generation is 0: only a positive generation is bumped when deletionTimestamp is set"
	default:
		return GenerationChange{Old: g, New: g + 1,
			Reason: "setting deletionTimestamp for the first time bumps a positive metadata.generation"}, nil
	}
	return keep, nil
}

// UnknownSubresourceError reports a subresource the strategy does not serve.
type UnknownSubresourceError struct {
	Resource    string
	Subresource string
}

// Error names the resource and subresource.
func (e *UnknownSubresourceError) Error() string {
	return fmt.Sprintf("%s has no %q subresource", e.Resource, e.Subresource)
}

// StatusCode returns 404, what the apiserver answers for an unknown subresource.
func (e *UnknownSubresourceError) StatusCode() int { return 404 }
