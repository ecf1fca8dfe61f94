package apply

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/managedfields"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// UpdateRequest is a write other than apply (create, PUT, JSON/merge/strategic PATCH): the
// object is already computed and only its ownership is recorded.
type UpdateRequest struct {
	// Live is the stored object, nil for a create.
	Live map[string]any
	// Object is the new object as the write produced it. Its metadata.managedFields, when it
	// has some, replace the live ones (that is how clients edit or reset managedFields).
	Object map[string]any
	// Kind is the endpoint's kind and version; the zero value means Object's own.
	Kind schema.GroupVersionKind
	// Manager is the fieldManager query parameter; when empty the apiserver uses UserAgent's
	// prefix up to the first "/".
	Manager   string
	UserAgent string
	// OptionsKind names the options type in the 422 for a bad fieldManager: "CreateOptions",
	// "UpdateOptions" (the default) or "PatchOptions".
	OptionsKind string
	// Subresource is "" for the main resource, or "status", "scale", ...
	Subresource string
	// Now is the time recorded when the manager's fields change.
	Now time.Time
	// Types, Convert, ResetFields, ResetValues, Reset, Validate, MaxUpdateManagers, CreateFrom
	// and LibraryOnly are as in Request.
	Types             TypeConverter
	Convert           schema.Converter
	ResetFields       map[fieldpath.APIVersion]fieldpath.Filter
	ResetValues       [][]string
	Reset             ValueReset
	Validate          UpdateValidation
	MaxUpdateManagers int
	CreateFrom        map[string]any
	LibraryOnly       bool
	// ObjectOwned hands Object over to Update: the result may hold Object's maps and lists
	// (changed in place) instead of a copy of them. Object must then hold only the object
	// model's types, and the caller must not use it afterwards. The result is the same value
	// either way; registry, whose objects are fresh decodes of the request, sets it to spare
	// a deep copy of every object it writes.
	ObjectOwned bool
	// LiveShared lets the values the reset paths (ResetValues) take back from Live, and the
	// fieldsV1 of the managedFields entries that did not change, be Live's own instead of
	// copies; Live must then hold only the object model's types, and the caller must change
	// neither Live nor the result below their top level and metadata fields (registry's
	// pipeline changes nothing deeper). The result is the same value either way.
	LiveShared bool
}

// UpdateResult is the outcome of Update.
type UpdateResult struct {
	Result
	// Fallback is set when the field manager failed on this input; the apiserver then keeps the
	// live managedFields unchanged (FieldManager.UpdateNoErrors) and Object carries them.
	Fallback error
}

// Update records the ownership of a non-apply write, as the apiserver does after every create,
// update and non-apply patch: the manager (with operation Update and the endpoint's apiVersion)
// gains the fields it changed or added; other managers lose the fields whose values changed.
// The errors are a 422 for an invalid fieldManager and Validate's 422; failures of the field manager itself
// fall back as the apiserver does (see UpdateResult.Fallback). Inputs are not changed.
func Update(req UpdateRequest) (UpdateResult, error) {
	if errs := managedfields.ValidateManager(req.Manager, field.NewPath("fieldManager")); len(errs) > 0 {
		kind := req.OptionsKind
		if kind == "" {
			kind = "UpdateOptions"
		}
		return UpdateResult{}, status.Invalid(status.GroupKind{Group: "meta.k8s.io", Kind: kind}, "", errs)
	}
	gvk := req.Kind
	if gvk.Empty() {
		gvk = gvkOf(req.Object)
	}
	e := newEngine(gvk, req.Subresource, req.Now, req.Types, req.Convert, req.ResetFields, req.MaxUpdateManagers)
	manager := req.Manager
	if manager == "" {
		manager = prefixFromUserAgent(req.UserAgent)
	}
	live := req.Live
	if live == nil {
		live = createBase(req.CreateFrom, req.Types, gvk)
	}

	managed := decodeLiveOrNew(live, req.Object, req.Subresource != "")
	newObj := withoutManagedFields(req.Object)
	obj, managed, err := e.updateTracked(withoutManagedFields(live), newObj, managed, manager)
	var out map[string]any
	if err == nil {
		var list []any
		if req.LiveShared {
			// The unchanged entries' sets are Live's fieldsV1, below Live's metadata.
			list, err = managedfields.EncodeListSharing(managed)
		} else {
			list, err = managedfields.EncodeList(managed)
		}
		if err != nil {
			err = fmt.Errorf("failed to encode managed fields: %v", err)
		} else {
			if req.ObjectOwned {
				out = obj
			} else {
				out = toModelMap(obj)
			}
			setManagedList(out, list)
			if req.ResetValues != nil {
				resetValuesSharing(out, resetBase(req.Live, live), req.ResetValues, req.LiveShared)
			}
			if req.Reset != nil {
				req.Reset(out, req.Live)
			}
		}
	}
	if err != nil {
		// UpdateNoErrors: keep the live managedFields.
		out, werr := managedfields.WithEntries(newObj, managedfields.Lenient(live))
		if werr != nil {
			out = toModelMap(newObj)
		}
		return UpdateResult{Result: Result{Object: out, NoOp: req.Live != nil && equalObjects(out, req.Live)}, Fallback: err}, nil
	}
	if err := validateUpdate(req.Validate, out, req.Live); err != nil {
		return UpdateResult{}, err
	}
	if req.Live != nil && !req.LibraryOnly {
		out = keepTimesOnNoop(out, req.Live)
	}
	return UpdateResult{Result: Result{Object: out, NoOp: req.Live != nil && equalObjects(out, req.Live)}}, nil
}

// prefixFromUserAgent is the apiserver's default manager name: the user agent up to the first
// "/", printable characters only, at most 128 bytes.
func prefixFromUserAgent(u string) string {
	m := strings.Split(u, "/")[0]
	var b strings.Builder
	for _, r := range m {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > managedfields.MaxFieldManagerLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// decodeLiveOrNew picks the managedFields an update starts from: the new object's when it has
// valid, non-empty ones; none when it resets them ([] or [{}]); the live object's otherwise
// (always the live object's on a subresource).
func decodeLiveOrNew(live, newObj map[string]any, subresource bool) managedfields.Managed {
	// DecodeObject is Decode(Lenient(obj)) without the JSON round trip of every FieldsV1, and
	// lets EncodeList reuse the sets that did not change.
	decodeOrEmpty := func(obj map[string]any) managedfields.Managed {
		m, err := managedfields.DecodeObject(obj)
		if err != nil {
			return emptyManaged()
		}
		return m
	}
	if subresource {
		return decodeOrEmpty(live)
	}
	var m managedfields.Managed
	var err error
	if notReset(newObj) {
		m, err = managedfields.DecodeObject(newObj)
	} else {
		entries := managedfields.Lenient(newObj)
		if isReset(entries) {
			return emptyManaged()
		}
		m, err = managedfields.Decode(entries)
	}
	if err != nil || len(m.Fields) == 0 {
		return decodeOrEmpty(live)
	}
	return m
}

// notReset reports, without decoding them, that obj's managedFields are certainly not a reset
// (isReset of its Lenient entries): absent, or two entries or more, or one naming a manager,
// an operation or an apiVersion.
func notReset(obj map[string]any) bool {
	md, _ := obj["metadata"].(map[string]any)
	v, ok := md["managedFields"]
	if !ok {
		return true
	}
	items, ok := v.([]any)
	if !ok || len(items) != 1 {
		return len(items) > 1
	}
	item, _ := items[0].(map[string]any)
	for _, k := range []string{"manager", "operation", "apiVersion"} {
		if s, ok := item[k].(string); ok && s != "" {
			return true
		}
	}
	return false
}

func emptyManaged() managedfields.Managed {
	return managedfields.Managed{Fields: fieldpath.ManagedFields{}, Times: map[string]*time.Time{}}
}

func isReset(entries []managedfields.Entry) bool {
	if len(entries) == 0 {
		return entries != nil
	}
	if len(entries) == 1 {
		e := entries[0]
		return e.Manager == "" && e.Operation == "" && e.APIVersion == "" && e.Time == nil && e.FieldsType == "" && e.FieldsV1 == nil && e.Subresource == ""
	}
	return false
}

// updateTracked is skipNonApplied's Update: an existing object (it has a uid) without
// managedFields is not tracked by updates; only apply starts tracking it.
func (e *engine) updateTracked(live, newObj map[string]any, managed managedfields.Managed, manager string) (map[string]any, managedfields.Managed, error) {
	if len(managed.Fields) == 0 && metaString(live, "uid") != "" {
		return newObj, managed, nil
	}
	return e.updateCapped(live, newObj, managed, manager)
}

// updateCapped is capManagers' Update followed by buildManagerInfo, managedFieldsUpdater,
// stripMeta and the structured update.
func (e *engine) updateCapped(live, newObj map[string]any, managed managedfields.Managed, manager string) (map[string]any, managedfields.Managed, error) {
	id := e.identifier(manager, managedfields.OperationUpdate)
	obj, managed, err := e.structuredUpdate(live, newObj, managed, currentOperation)
	if err != nil {
		return nil, managed, err
	}
	stripMeta(managed, currentOperation)
	if vs, ok := managed.Fields[currentOperation]; ok {
		delete(managed.Fields, currentOperation)
		if prev, ok := managed.Fields[id]; ok {
			managed.Fields[id] = fieldpath.NewVersionedSet(vs.Set().Union(prev.Set()), vs.APIVersion(), vs.Applied())
		} else {
			managed.Fields[id] = vs
		}
		now := e.now
		managed.Times[id] = &now
	}
	if err := e.capUpdateManagers(managed); err != nil {
		return nil, managed, fmt.Errorf("failed to cap update managers: %v", err)
	}
	return obj, managed, nil
}

func (e *engine) structuredUpdate(live, newObj map[string]any, managed managedfields.Managed, manager string) (map[string]any, managedfields.Managed, error) {
	newVersioned, err := e.toVersioned(newObj)
	if err != nil {
		return nil, managed, fmt.Errorf("failed to convert new object (%v) to proper version (%v): %v", gvknn(newObj), e.gvk.GroupVersion(), err)
	}
	liveVersioned, err := e.toVersioned(live)
	if err != nil {
		return nil, managed, fmt.Errorf("failed to convert live object (%v) to proper version: %v", gvknn(live), err)
	}
	newTyped, err := e.types.ObjectToTyped(newVersioned, typed.AllowDuplicates)
	if err != nil {
		return nil, managed, fmt.Errorf("failed to convert new object (%v) to smd typed: %v", gvknn(newVersioned), schema.SortedTypeErrors(err))
	}
	liveForCompare := liveVersioned
	if l, n, ok := e.withoutSharedFields(liveVersioned, newVersioned, managed); ok {
		// The top-level fields both objects hold the same value of compare equal and are valid
		// in the live object because they are in the new one: only the others are converted
		// and compared (see withoutSharedFields).
		if newTyped, err = (builtinTypes{}).unvalidated(n); err != nil {
			return nil, managed, fmt.Errorf("failed to convert new object (%v) to smd typed: %v", gvknn(newVersioned), schema.SortedTypeErrors(err))
		}
		liveForCompare = l
	}
	liveTyped, err := e.types.ObjectToTyped(liveForCompare, typed.AllowDuplicates)
	if err != nil {
		return nil, managed, fmt.Errorf("failed to convert live object (%v) to smd typed: %v", gvknn(liveVersioned), schema.SortedTypeErrors(err))
	}
	fields, err := e.smdUpdate(liveTyped, newTyped, managed.Fields, manager)
	if err != nil {
		return nil, managed, fmt.Errorf("failed to update ManagedFields (%v): %v", gvknn(newVersioned), err)
	}
	managed.Fields = fields
	return newObj, managed, nil
}

// capUpdateManagers folds the oldest Update managers into "ancient-changes" entries (one per
// apiVersion) until at most maxUpdaters remain, exactly as capManagersManager does (including
// its handling of an existing ancient-changes entry).
func (e *engine) capUpdateManagers(managed managedfields.Managed) error {
	var updaters []string
	for id, vs := range managed.Fields {
		if !vs.Applied() {
			updaters = append(updaters, id)
		}
	}
	if len(updaters) <= e.maxUpdaters {
		return nil
	}
	seconds := func(id string) int64 {
		if t := managed.Times[id]; t != nil {
			return t.Unix()
		}
		return 0
	}
	sort.Slice(updaters, func(i, j int) bool {
		si, sj := seconds(updaters[i]), seconds(updaters[j])
		if si != sj {
			return si < sj
		}
		return updaters[i] < updaters[j]
	})
	firstOfVersion := map[fieldpath.APIVersion]string{}
	// The sets folded into a bucket are kept aside and united once, when the bucket is read
	// or at the end: uniting them one at a time copied the growing bucket at every fold
	// (quadratic in the managers folded). Union is associative and commutative, so the bucket
	// holds the same set.
	pending := map[string][]*fieldpath.Set{}
	settle := func(bucket string) {
		sets := pending[bucket]
		if len(sets) == 0 {
			return
		}
		delete(pending, bucket)
		cur := managed.Fields[bucket]
		managed.Fields[bucket] = fieldpath.NewVersionedSet(managedfields.UnionAll(append(sets, cur.Set())), cur.APIVersion(), false)
	}
	for i, length := 0, len(updaters); i < len(updaters) && length > e.maxUpdaters; i++ {
		id := updaters[i]
		settle(id) // id is a bucket folded into already
		vs := managed.Fields[id]
		t := managed.Times[id]
		version := vs.APIVersion()
		bucket := managedfields.Identifier(managedfields.Entry{Manager: AncientChangesManager, Operation: managedfields.OperationUpdate, APIVersion: string(version)})
		first, ok := firstOfVersion[version]
		if !ok {
			firstOfVersion[version] = id
			continue
		}
		if _, ok := managed.Fields[bucket]; !ok {
			s := managed.Fields[first]
			delete(managed.Fields, first)
			managed.Fields[bucket] = s
		}
		// An updater is never applied, and the bucket is of its version: the bucket's set
		// becomes NewVersionedSet(vs ∪ bucket, version, false), as capManagersManager writes it.
		pending[bucket] = append(pending[bucket], vs.Set())
		delete(managed.Fields, id)
		if id == bucket {
			delete(pending, bucket)
		}
		length--
		managed.Times[bucket] = t
	}
	for bucket := range pending {
		settle(bucket)
	}
	return nil
}

// keepTimesOnNoop is the storage layer's IgnoreManagedFieldsTimestampsTransformer: when a write
// changes nothing but managedFields timestamps, the old timestamps are kept (and the write is
// then a no-op). newObj is owned by the caller and updated in place.
func keepTimesOnNoop(newObj, oldObj map[string]any) map[string]any {
	newList, _ := metadataOf(newObj)["managedFields"].([]any)
	oldList, _ := metadataOf(oldObj)["managedFields"].([]any)
	if len(newList) == 0 || len(oldList) != len(newList) {
		return newObj
	}
	// The objects must be equal apart from managedFields (checked first: it is what usually
	// differs, and the cheapest to check).
	if !equalIgnoringManagedFields(newObj, oldObj) {
		return newObj
	}
	oldEntries := managedfields.Lenient(oldObj)
	newEntries := managedfields.Lenient(newObj)
	if len(oldEntries) != len(newEntries) {
		return newObj
	}
	allSame := true
	for i := range newEntries {
		if !timesEqual(newEntries[i].Time, oldEntries[i].Time) {
			allSame = false
			break
		}
	}
	if allSame {
		return newObj
	}
	for i := range newEntries {
		a, b := newEntries[i], oldEntries[i]
		if a.Manager != b.Manager || a.Operation != b.Operation || a.APIVersion != b.APIVersion ||
			a.FieldsType != b.FieldsType || a.Subresource != b.Subresource ||
			(a.FieldsV1 == nil) != (b.FieldsV1 == nil) || string(a.FieldsV1) != string(b.FieldsV1) {
			return newObj
		}
	}
	for i, item := range newList {
		m, ok := item.(map[string]any)
		if !ok {
			return newObj
		}
		if t := oldEntries[i].Time; t != nil {
			m["time"] = t.UTC().Format(time.RFC3339)
		} else {
			delete(m, "time")
		}
	}
	return newObj
}

func timesEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// equalIgnoringManagedFields is the transformer's equalIgnoringValueAtPath for
// metadata.managedFields.
func equalIgnoringManagedFields(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok {
			return false
		}
		if k != "metadata" {
			if !equalObjects(av, bv) {
				return false
			}
			continue
		}
		am, aok := av.(map[string]any)
		bm, bok := bv.(map[string]any)
		if !aok || !bok {
			continue // the transformer ignores the path when it is not a map on both sides
		}
		if len(am) != len(bm) {
			return false
		}
		for mk, amv := range am {
			bmv, ok := bm[mk]
			if !ok {
				return false
			}
			if mk != "managedFields" && !equalObjects(amv, bmv) {
				return false
			}
		}
	}
	return true
}

// withoutSharedFields returns live and newObj without the map entries whose values are
// identical in both: the top-level fields (other than apiVersion, kind and metadata), and below
// the others the entries of their maps and of the items of their keyed lists (sharedPruned),
// when that cannot change what the structured update computes, and ok false when nothing would
// be left out. A Pod's status update then converts and compares its status, not its whole spec
// again; a Deployment's image change compares the image, not the whole pod template.
//
// Why the result is the same: structured-merge-diff validates and compares a map (a struct's
// fields too) entry by entry, and an identical entry compares equal (no added, removed or
// modified path under it); being valid in the new object (validated whole before this is
// called), it is valid in the live object too, so the live object's conversion fails on the
// same errors. An atomic map compares as a whole, equal with or without the entries both
// hold; two maps left empty are a leaf, equal as the maps were. Keyed lists are matched by
// their keys: pruned only when both hold, index by index, the same key fields with the same
// values, which are kept, so every item meets the same item (or the same duplicates, in the
// same order). Managers of another apiVersion would compare converted objects, whose fields a
// conversion may move: then nothing is left out.
func (e *engine) withoutSharedFields(live, newObj map[string]any, managed managedfields.Managed) (map[string]any, map[string]any, bool) {
	if e.types != Builtin || len(live) == 0 || e.wholeObjects {
		return nil, nil, false
	}
	for _, vs := range managed.Fields {
		if vs.APIVersion() != e.gv {
			return nil, nil, false
		}
	}
	pt, err := builtinType(newObj)
	if err != nil {
		return nil, nil, false
	}
	root, ok := pt.Schema.Resolve(pt.TypeRef)
	if !ok || root.Map == nil {
		return nil, nil, false
	}
	var shared []string
	pruned := map[string][2]any{}
	for k, v := range newObj {
		switch k {
		case "apiVersion", "kind", "metadata":
			continue
		}
		lv, ok := live[k]
		if !ok {
			continue
		}
		if equalObjects(lv, v) {
			shared = append(shared, k)
			continue
		}
		if sf, ok := root.Map.FindField(k); ok {
			if pl, pn, changed := sharedPruned(pt.Schema, sf.Type, lv, v, nil); changed {
				pruned[k] = [2]any{pl, pn}
			}
		}
	}
	if len(shared) == 0 && len(pruned) == 0 {
		return nil, nil, false
	}
	without := func(obj map[string]any, side int) map[string]any {
		out := make(map[string]any, len(obj))
		for k, v := range obj {
			out[k] = v
		}
		for _, k := range shared {
			delete(out, k)
		}
		for k, p := range pruned {
			out[k] = p[side]
		}
		return out
	}
	return without(live, 0), without(newObj, 1), true
}

// sharedPruned returns l and n (values of the type tr at the same path of the live and the new
// object) without the entries both hold identically, below maps that are not atomic and the
// items of keyed lists that match index by index (see withoutSharedFields); the keys of keep
// stay. changed is false when nothing is left out (l and n are then returned as they are).
// Neither input is changed: what is left out is left out of copies.
func sharedPruned(sc *smdschema.Schema, tr smdschema.TypeRef, l, n any, keep []string) (any, any, bool) {
	a, ok := sc.Resolve(tr)
	if !ok {
		return l, n, false
	}
	switch lv := l.(type) {
	case map[string]any:
		nv, ok := n.(map[string]any)
		if !ok || lv == nil || nv == nil || a.Map == nil || a.Map.ElementRelationship == smdschema.Atomic {
			return l, n, false
		}
		return sharedPrunedMap(sc, a.Map, lv, nv, keep)
	case []any:
		nv, ok := n.([]any)
		if !ok || a.List == nil || a.List.ElementRelationship != smdschema.Associative || len(a.List.Keys) == 0 || len(lv) != len(nv) {
			return l, n, false
		}
		for i := range lv {
			li, lok := lv[i].(map[string]any)
			ni, nok := nv[i].(map[string]any)
			if !lok || !nok || li == nil || ni == nil {
				return l, n, false
			}
			for _, k := range a.List.Keys {
				lk, lhas := li[k]
				nk, nhas := ni[k]
				if lhas != nhas || !equalObjects(lk, nk) {
					return l, n, false
				}
			}
		}
		var lo, no []any
		for i := range lv {
			pl, pn, changed := sharedPruned(sc, a.List.ElementType, lv[i], nv[i], a.List.Keys)
			if !changed {
				continue
			}
			if lo == nil {
				lo, no = append([]any(nil), lv...), append([]any(nil), nv...)
			}
			lo[i], no[i] = pl, pn
		}
		if lo == nil {
			return l, n, false
		}
		return lo, no, true
	}
	return l, n, false
}

func sharedPrunedMap(sc *smdschema.Schema, t *smdschema.Map, l, n map[string]any, keep []string) (any, any, bool) {
	var lo, no map[string]any
	own := func() {
		if lo == nil {
			lo, no = shallowCopy(l), shallowCopy(n)
		}
	}
	for k, nk := range n {
		lk, ok := l[k]
		if !ok || slices.Contains(keep, k) {
			continue
		}
		if equalObjects(lk, nk) {
			own()
			delete(lo, k)
			delete(no, k)
			continue
		}
		tr := t.ElementType
		if sf, ok := t.FindField(k); ok {
			tr = sf.Type
		} else if (tr == smdschema.TypeRef{}) {
			continue
		}
		if pl, pn, changed := sharedPruned(sc, tr, lk, nk, nil); changed {
			own()
			lo[k], no[k] = pl, pn
		}
	}
	if lo == nil {
		return l, n, false
	}
	return lo, no, true
}

func shallowCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
