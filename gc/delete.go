package gc

import (
	"time"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

// Propagation is a DELETE request's propagationPolicy.
type Propagation string

// The propagation policies.
const (
	// Foreground: the object stays, with the foregroundDeletion finalizer, until the garbage
	// collector has deleted every dependent that blocks it.
	Foreground Propagation = "Foreground"
	// Background: the object goes at once; the garbage collector deletes dependents afterwards.
	Background Propagation = "Background"
	// Orphan: the object stays, with the orphan finalizer, until the garbage collector has
	// removed the object from its dependents' ownerReferences.
	Orphan Propagation = "Orphan"
)

// Preconditions mirrors metav1.Preconditions.
type Preconditions struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}

// DeleteOptions mirrors metav1.DeleteOptions, plus how to resolve the object's kind. The zero
// value is a DELETE with an empty body.
type DeleteOptions struct {
	PropagationPolicy  *Propagation   `json:"propagationPolicy,omitempty"`
	OrphanDependents   *bool          `json:"orphanDependents,omitempty"`
	GracePeriodSeconds *int64         `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *Preconditions `json:"preconditions,omitempty"`
	DryRun             []string       `json:"dryRun,omitempty"`

	// Kinds resolves the object's kind (resource, default policy, graceful deletion); nil means
	// Builtin, then a guess from the object itself.
	Kinds Kinds `json:"-"`
	// GarbageCollectionDisabled mirrors kube-apiserver --enable-garbage-collector=false: the
	// orphan and foregroundDeletion finalizers are never added.
	GarbageCollectionDisabled bool `json:"-"`
	// Now is the time of the request: the deletionTimestamp a graceful or finalizer-held
	// deletion sets.
	Now time.Time `json:"-"`
}

// DeleteResult is the outcome of one DELETE.
type DeleteResult struct {
	// Object is the object as stored after the request; nil when it was removed. With dryRun
	// the store is unchanged, so Object is the input (nil only if the object would be removed:
	// see Removed).
	Object Object
	// Removed is true when the object is gone from storage (or would be, under dryRun).
	Removed bool
	// Changed is true when the stored object changed (always true when Removed).
	Changed bool
	// Code is the HTTP status: 200, or 202 when the object remains and orphanDependents=false
	// was given.
	Code int
	// Written is the state the apiserver wrote just before removing the object, when it wrote
	// one (a graceful deletion with a zero grace period: pods); watchers see it as a
	// modification followed by the deletion.
	Written Object
	// Response is the response body: the object (its state after the request, or its last
	// state for registries that return deleted objects) or a metav1.Status.
	Response Object
}

// Validate is the apiserver's ValidateDeleteOptions, which the DELETE handler runs before it
// reads the object: a 422 Invalid DeleteOptions.meta.k8s.io, whether the object exists or not.
func (o DeleteOptions) Validate() error { return o.validate() }

func (o DeleteOptions) validate() error {
	var errs field.ErrorList
	if o.OrphanDependents != nil && o.PropagationPolicy != nil {
		errs = append(errs, field.Invalid(field.NewPath("propagationPolicy"), string(*o.PropagationPolicy), "orphanDependents and deletionPropagation cannot be both set"))
	}
	if p := o.PropagationPolicy; p != nil && *p != Foreground && *p != Background && *p != Orphan {
		errs = append(errs, field.NotSupported(field.NewPath("propagationPolicy"), string(*p), []string{"Foreground", "Background", "Orphan", "nil"}))
	}
	for _, d := range o.DryRun {
		if d != "All" {
			errs = append(errs, field.NotSupported(field.NewPath("dryRun"), o.DryRun, []string{"All"}))
			break
		}
	}
	if len(errs) > 0 {
		return invalidError("meta.k8s.io", "DeleteOptions", "", errs)
	}
	return nil
}

func (o DeleteOptions) dryRun() bool { return len(o.DryRun) > 0 }

// Delete answers a DELETE of obj as kube-apiserver 1.37 does: the registry's graceful deletion
// (pods), the garbage collector's finalizers chosen from the options, the existing finalizers
// and the resource's default policy, preconditions, dryRun, and the namespace registry's own
// rules for namespaces. opts.Now is the time of the request. obj is not modified.
//
// The result's Object has deletionTimestamp, deletionGracePeriodSeconds, finalizers and
// generation as the apiserver stores them; resourceVersion is storage's business and is left
// as it was. Errors are *status.Error values with the apiserver's code and message.
func Delete(obj Object, opts DeleteOptions) (DeleteResult, error) {
	now := opts.Now
	if err := opts.validate(); err != nil {
		return DeleteResult{}, err
	}
	m, err := readMeta(obj)
	if err != nil {
		return DeleteResult{}, badRequest(err.Error())
	}
	cat := &catalog{user: opts.Kinds}
	k := cat.kindOf(&m)
	if k.Group == "" && k.Kind == "Namespace" {
		return deleteNamespace(obj, &m, k, opts, now)
	}
	return deleteGeneric(obj, &m, k, opts, now)
}

// beforeDelete mirrors rest.BeforeDelete: it returns whether the deletion is graceful, whether a
// graceful deletion is already pending, and the metadata changes graceful deletion makes.
func beforeDelete(obj Object, m *meta, k Kind, opts *DeleteOptions, now time.Time) (graceful, pending bool, set map[string]any, err error) {
	if err := checkDeletePreconditions(k, opts.Preconditions, obj, m); err != nil {
		return false, false, nil, err
	}
	if g := opts.GracePeriodSeconds; g != nil && *g < 0 {
		one := int64(1)
		opts.GracePeriodSeconds = &one
	}
	existingGrace := m.deletionGrace
	if existingGrace != nil && *existingGrace < 0 {
		one := int64(1)
		existingGrace = &one
	}
	if !k.Graceful {
		return false, false, nil, nil
	}
	if m.deleting() {
		if existingGrace == nil || *existingGrace == 0 {
			return false, false, nil, nil
		}
		if opts.GracePeriodSeconds == nil {
			g := *existingGrace
			opts.GracePeriodSeconds = &g
			return false, true, nil, nil
		}
		period := *opts.GracePeriodSeconds
		if period >= *existingGrace {
			return false, true, nil, nil
		}
		ts, ok := parseTime(m.deletionTimestamp)
		if !ok {
			ts = now
		}
		newTS := ts.Add(-time.Duration(*existingGrace) * time.Second).Add(time.Duration(period) * time.Second)
		// Compared with the full clock, as metav1.Now() is: a timestamp in the current second
		// is already in the past.
		if newTS.Before(now) {
			newTS = now
			if period != 0 {
				period = 1
			}
		}
		return true, false, map[string]any{"deletionTimestamp": formatTime(newTS), "deletionGracePeriodSeconds": period}, nil
	}
	// The pod strategy's CheckGracefulDelete.
	period := podPeriod(obj, opts.GracePeriodSeconds)
	opts.GracePeriodSeconds = &period
	set = map[string]any{"deletionTimestamp": formatTime(now.Add(time.Duration(period) * time.Second)), "deletionGracePeriodSeconds": period}
	if m.generation > 0 {
		set["generation"] = m.generation + 1
	}
	return true, false, set, nil
}

// podPeriod computes the grace period the pod strategy chooses.
func podPeriod(obj Object, requested *int64) int64 {
	period := int64(0)
	spec, _ := obj["spec"].(map[string]any)
	if node, _ := spec["nodeName"].(string); node == "" {
		// An unscheduled pod goes at once, whatever its period.
		return 0
	}
	if requested != nil {
		period = *requested
	} else if v, ok := asInt(spec["terminationGracePeriodSeconds"]); ok {
		period = v
	} else if spec != nil {
		if _, present := spec["terminationGracePeriodSeconds"]; !present {
			// The apiserver defaults terminationGracePeriodSeconds to 30 on create.
			period = 30
		}
	}
	status, _ := obj["status"].(map[string]any)
	if phase, _ := status["phase"].(string); phase == "Failed" || phase == "Succeeded" {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	return period
}

// gcFinalizers mirrors deletionFinalizersForGarbageCollection.
func gcFinalizers(m *meta, k Kind, opts *DeleteOptions) (changed bool, finalizers []string) {
	if opts.GarbageCollectionDisabled {
		return false, m.finalizers
	}
	orphan, foreground := false, false
	if k.Policy != schema.GCUnsupported {
		switch {
		case opts.OrphanDependents != nil:
			orphan = *opts.OrphanDependents
		case opts.PropagationPolicy != nil && (*opts.PropagationPolicy == Orphan || *opts.PropagationPolicy == Background || *opts.PropagationPolicy == Foreground):
			orphan = *opts.PropagationPolicy == Orphan
			foreground = *opts.PropagationPolicy == Foreground
		default:
			decided := false
			for _, f := range m.finalizers {
				if f == FinalizerOrphan {
					orphan, decided = true, true
					break
				}
				if f == FinalizerForeground {
					foreground, decided = true, true
					break
				}
			}
			if !decided {
				orphan = k.Policy == schema.GCOrphan
			}
		}
	}
	var out []string
	for _, f := range m.finalizers {
		if f != FinalizerOrphan && f != FinalizerForeground {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, FinalizerOrphan)
	}
	if foreground {
		out = append(out, FinalizerForeground)
	}
	if sameSet(out, m.finalizers) {
		return false, m.finalizers
	}
	return true, out
}

func sameSet(a, b []string) bool {
	if len(a) <= 8 && len(b) <= 8 {
		return contained(a, b) && contained(b, a)
	}
	as, bs := map[string]bool{}, map[string]bool{}
	for _, x := range a {
		as[x] = true
	}
	for _, x := range b {
		bs[x] = true
	}
	if len(as) != len(bs) {
		return false
	}
	for x := range as {
		if !bs[x] {
			return false
		}
	}
	return true
}

// contained reports whether every string of a is in b.
func contained(a, b []string) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func deleteGeneric(obj Object, m *meta, k Kind, opts DeleteOptions, now time.Time) (DeleteResult, error) {
	return deleteObject(obj, m, k, opts, now, true)
}

// deleteObject is deleteGeneric; respond=false skips building the response body.
func deleteObject(obj Object, m *meta, k Kind, opts DeleteOptions, now time.Time, respond bool) (DeleteResult, error) {
	graceful, pending, set, err := beforeDelete(obj, m, k, &opts, now)
	if err != nil {
		return DeleteResult{}, err
	}
	code := 200
	if opts.OrphanDependents != nil && !*opts.OrphanDependents {
		code = 202
	}
	if pending {
		r := DeleteResult{Object: obj, Code: code}
		if respond {
			r.Response = finalizeResponse(obj, m, k)
		}
		return r, nil
	}
	changedFinalizers, finalizers := gcFinalizers(m, k, &opts)
	if !graceful && len(m.finalizers) == 0 && !changedFinalizers {
		// Delete at once.
		return removed(obj, m, k, opts, respond), nil
	}
	if set == nil {
		set = map[string]any{}
	}
	if changedFinalizers {
		set["finalizers"] = stringList(finalizers)
	}
	pendingFinalizers := len(finalizers) != 0
	if !graceful {
		if !pendingFinalizers {
			r := removed(obj, m, k, opts, respond)
			if opts.dryRun() {
				// The dry-run update aborted before filling its output, and Store.Delete
				// returns that empty object.
				r.Response = Object{"apiVersion": m.apiVersion, "kind": m.kind, "metadata": map[string]any{}}
			}
			return r, nil
		}
		// markAsDeleting.
		if !m.deleting() && m.generation > 0 {
			set["generation"] = m.generation + 1
		}
		ts, ok := parseTime(m.deletionTimestamp)
		if !m.deleting() || !ok || ts.After(now) {
			set["deletionTimestamp"] = formatTime(now)
		}
		set["deletionGracePeriodSeconds"] = int64(0)
	}
	next := withMeta(obj, set)
	if !pendingFinalizers && *opts.GracePeriodSeconds == 0 {
		// Written with the deletion timestamp, then deleted from storage at once.
		nm := *m
		r := removed(next, &nm, k, opts, respond)
		if !opts.dryRun() {
			r.Written = next
		}
		if opts.dryRun() {
			// Store.Delete returns the dry-run update's output as it is.
			r.Response = next
		}
		return r, nil
	}
	changed := metaChanges(obj, set)
	res := DeleteResult{Object: next, Changed: changed, Code: code, Response: next}
	if opts.dryRun() {
		res.Object, res.Changed = obj, false
	}
	return res, nil
}

// removed builds the result of a deletion from storage.
func removed(last Object, m *meta, k Kind, opts DeleteOptions, respond bool) DeleteResult {
	r := DeleteResult{Removed: true, Changed: true, Code: 200}
	if respond {
		r.Response = finalizeResponse(last, m, k)
	}
	if opts.dryRun() {
		r.Object, r.Changed = nil, false
	}
	return r
}

// finalizeResponse mirrors Store.finalizeDelete: the object for registries that return deleted
// objects, a Status otherwise.
func finalizeResponse(last Object, m *meta, k Kind) Object {
	if k.ReturnDeletedObject {
		return last
	}
	details := map[string]any{"name": m.name, "kind": k.Resource}
	if k.Group != "" {
		details["group"] = k.Group
	}
	if m.uid != "" {
		details["uid"] = m.uid
	}
	return Object{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Success", "details": details}
}

// metaChanges reports whether setting the metadata entries of set (nil removes) changes obj.
func metaChanges(obj Object, set map[string]any) bool {
	md, _ := obj["metadata"].(map[string]any)
	for k, v := range set {
		old, present := md[k]
		if v == nil {
			if present && old != nil {
				return true
			}
			continue
		}
		if !present || !scalarEqual(old, v) {
			return true
		}
	}
	return false
}

func scalarEqual(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !scalarEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !scalarEqual(v, w) {
				return false
			}
		}
		return true
	}
	if ai, ok := asInt(a); ok {
		bi, ok := asInt(b)
		return ok && ai == bi
	}
	return a == b
}

// deleteNamespace mirrors the namespace registry's Delete: the first DELETE only marks the
// namespace Terminating; the namespace goes once spec.finalizers is empty. default, kube-system
// and kube-public are deleted like any other: the NamespaceLifecycle admission plugin, not the
// registry, refuses their deletion (registry does, unless the plugin is disabled).
func deleteNamespace(obj Object, m *meta, k Kind, opts DeleteOptions, now time.Time) (DeleteResult, error) {
	if err := checkDeletePreconditions(k, opts.Preconditions, obj, m); err != nil {
		return DeleteResult{}, err
	}
	code := 200
	if opts.OrphanDependents != nil && !*opts.OrphanDependents {
		code = 202
	}
	if !m.deleting() {
		set := map[string]any{"deletionTimestamp": formatTime(now)}
		orphan, foreground := m.hasFinalizer(FinalizerOrphan), m.hasFinalizer(FinalizerForeground)
		switch {
		case opts.OrphanDependents != nil:
			orphan, foreground = *opts.OrphanDependents, !*opts.OrphanDependents
		case opts.PropagationPolicy != nil:
			orphan, foreground = *opts.PropagationPolicy == Orphan, *opts.PropagationPolicy == Foreground
		}
		if orphan != m.hasFinalizer(FinalizerOrphan) || foreground != m.hasFinalizer(FinalizerForeground) {
			var fs []string
			for _, f := range m.finalizers {
				if f != FinalizerOrphan && f != FinalizerForeground {
					fs = append(fs, f)
				}
			}
			if orphan {
				fs = append(fs, FinalizerOrphan)
			}
			if foreground {
				fs = append(fs, FinalizerForeground)
			}
			set["finalizers"] = stringList(fs)
		}
		next := withMeta(obj, set)
		status, _ := next["status"].(map[string]any)
		ns := map[string]any{}
		for key, v := range status {
			ns[key] = v
		}
		ns["phase"] = "Terminating"
		next["status"] = ns
		res := DeleteResult{Object: next, Changed: true, Code: code, Response: next}
		if opts.dryRun() {
			res.Object, res.Changed = obj, false
		}
		return res, nil
	}
	if len(specFinalizers(obj)) != 0 {
		return DeleteResult{Object: obj, Code: code, Response: obj}, nil
	}
	uid := m.uid
	if opts.Preconditions == nil {
		opts.Preconditions = &Preconditions{}
	}
	if opts.Preconditions.UID == nil {
		opts.Preconditions.UID = &uid
	}
	return deleteGeneric(obj, m, k, opts, now)
}

// specFinalizers returns a namespace's spec.finalizers.
func specFinalizers(obj Object) []string {
	spec, _ := obj["spec"].(map[string]any)
	list, _ := spec["finalizers"].([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
