package merge

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/writepath/writepath/schema"
)

// This file is strategic merge patch application and the helpers creation
// shares, with the semantics of k8s.io/apimachinery/pkg/util/strategicpatch
// v0.37.2 (what kube-apiserver 1.37 runs for
// application/strategic-merge-patch+json), over schema-driven metadata. The
// reference works in place on its inputs and some of its results depend on
// how Go slices share backing arrays; the functions here work on private
// copies with the same slice operations, so those results are reproduced.
// Where the reference iterates a Go map (randomly ordered), keys are taken in
// sorted order.

const (
	directiveMarker  = "$patch"
	deleteDirective  = "delete"
	replaceDirective = "replace"
	mergeDirective   = "merge"

	retainKeysStrategy                     = "retainKeys"
	deleteFromPrimitiveListDirectivePrefix = "$deleteFromPrimitiveList"
	retainKeysDirective                    = "$" + retainKeysStrategy
	setElementOrderDirectivePrefix         = "$setElementOrder"
)

// Meta is the strategic-merge-patch metadata at one position of a type, the
// questions strategicpatch.LookupPatchMeta answers: the metadata of a field
// holding an object, of a field holding a list (with the list's element
// type), and the Go kind name of the position ("struct", "map", ...). Errors
// carry strategicpatch's wording. SchemaMeta adapts schema's built-in
// catalogue.
type Meta interface {
	LookupStruct(key string) (Meta, FieldMeta, error)
	LookupSlice(key string) (Meta, FieldMeta, error)
	Name() string
}

// FieldMeta is a field's patch strategies (its patchStrategy tag split at
// commas: "merge", "replace", "retainKeys") and patch merge key.
type FieldMeta struct {
	Strategies []string
	MergeKey   string
}

// SchemaMeta adapts a position of schema's built-in patch metadata to Meta.
func SchemaMeta(m schema.PatchMeta) Meta { return schemaMeta{m} }

// KindMeta returns the strategic-merge-patch metadata of a built-in kind.
func KindMeta(k *schema.Kind) (Meta, error) {
	m, err := k.PatchMeta()
	if err != nil {
		return nil, err
	}
	return schemaMeta{m}, nil
}

type schemaMeta struct{ m schema.PatchMeta }

func (s schemaMeta) LookupStruct(key string) (Meta, FieldMeta, error) {
	sub, info, err := s.m.LookupField(key)
	if err != nil {
		return nil, FieldMeta{}, err
	}
	return schemaMeta{sub}, FieldMeta{Strategies: info.Strategies(), MergeKey: info.MergeKey}, nil
}

func (s schemaMeta) LookupSlice(key string) (Meta, FieldMeta, error) {
	sub, info, err := s.m.LookupSlice(key)
	if err != nil {
		return nil, FieldMeta{}, err
	}
	return schemaMeta{sub}, FieldMeta{Strategies: info.Strategies(), MergeKey: info.MergeKey}, nil
}

func (s schemaMeta) Name() string { return s.m.Name() }

// ErrServerPanics is the cause of an *Error for an input on which
// strategicpatch panics (comparing or hashing maps, a null first list
// element): kube-apiserver then resets the request's HTTP/2 stream and kubectl
// reports "stream error: ... INTERNAL_ERROR". The status is a synthetic 500.
var ErrServerPanics = errors.New("kube-apiserver panics on this patch and aborts the request (HTTP/2 stream INTERNAL_ERROR)")

type mergeOptions struct {
	mergeParallelList    bool
	ignoreUnmatchedNulls bool
	stats                *mergeStats // work counters, for the scaling tests
}

func errBadArgType(expected string, actual any) error {
	return fmt.Errorf("expected a %s, but received a %s", expected, reflect.TypeOf(actual))
}

const (
	mapTypeName   = "map[string]interface {}"
	sliceTypeName = "[]interface {}"
)

func errNoMergeKey(m map[string]any, k string) error {
	return fmt.Errorf("map: %v does not contain declared merge key: %s", m, k)
}

func errBadPatchType(t any, m map[string]any) error {
	return fmt.Errorf("unknown patch type: %s in map: %v", t, m)
}

// ifaceEq is Go's == on two interface values, which panics when both hold the
// same uncomparable type.
func ifaceEq(a, b any) (bool, error) {
	switch a.(type) {
	case map[string]any:
		if _, ok := b.(map[string]any); ok {
			return false, ErrServerPanics
		}
		return false, nil
	case []any:
		if _, ok := b.([]any); ok {
			return false, ErrServerPanics
		}
		return false, nil
	}
	return a == b, nil
}

func hashable(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	return appendSortedKeys(make([]string, 0, len(m)), m)
}

// appendSortedKeys appends m's keys to dst, sorted (dst can be a caller's
// stack buffer).
func appendSortedKeys(dst []string, m map[string]any) []string {
	for k := range m {
		dst = append(dst, k)
	}
	sort.Strings(dst)
	return dst
}

// strategies splits a field's strategies into retainKeys and the other one.
func extractRetainKeysPatchStrategy(strategies []string) (bool, string, error) {
	switch len(strategies) {
	case 0:
		return false, "", nil
	case 1:
		if strategies[0] == retainKeysStrategy {
			return true, "", nil
		}
		return false, strategies[0], nil
	case 2:
		switch {
		case strategies[0] == retainKeysStrategy:
			return true, strategies[1], nil
		case strategies[1] == retainKeysStrategy:
			return true, strategies[0], nil
		}
	}
	return false, "", fmt.Errorf("unexpected patch strategy: %v", strategies)
}

func mergeMap(original, patch map[string]any, meta Meta, opts mergeOptions) (map[string]any, error) {
	if v, ok := patch[directiveMarker]; ok {
		return handleDirectiveInMergeMap(v, patch)
	}
	if original == nil {
		original = map[string]any{}
	}
	if err := applyRetainKeysDirective(original, patch, opts); err != nil {
		return nil, err
	}
	if err := mergePatchIntoOriginal(original, patch, meta, opts); err != nil {
		return nil, err
	}
	var buf [16]string
	for _, k := range appendSortedKeys(buf[:0], patch) {
		patchV, present := patch[k]
		if !present {
			continue
		}
		isDeleteList := false
		if strings.HasPrefix(k, deleteFromPrimitiveListDirectivePrefix) {
			if !opts.mergeParallelList {
				original[k] = patchV
				continue
			}
			key, err := extractKey(k, deleteFromPrimitiveListDirectivePrefix)
			if err != nil {
				return nil, err
			}
			isDeleteList = true
			if len(key) > 0 {
				k = key
			}
		}
		if patchV == nil {
			delete(original, k)
			if opts.ignoreUnmatchedNulls {
				continue
			}
		}
		orig, ok := original[k]
		if !ok || reflect.TypeOf(orig) != reflect.TypeOf(patchV) {
			if !isDeleteList {
				if opts.ignoreUnmatchedNulls {
					discardNullValuesFromPatch(patchV)
				}
				var keep bool
				original[k], keep = removeDirectives(patchV)
				if !keep {
					delete(original, k)
				}
			}
			continue
		}
		var err error
		switch orig.(type) {
		case map[string]any:
			sub, fm, err2 := lookupStruct(meta, k)
			if err2 != nil {
				return nil, err2
			}
			_, strategy, err2 := fm.retainKeysStrategy()
			if err2 != nil {
				return nil, err2
			}
			original[k], err = mergeMapHandler(orig, patchV, sub, strategy, opts)
		case []any:
			sub, fm, err2 := lookupSlice(meta, k)
			if err2 != nil {
				return nil, err2
			}
			_, strategy, err2 := fm.retainKeysStrategy()
			if err2 != nil {
				return nil, err2
			}
			original[k], err = mergeSliceHandler(orig, patchV, sub, strategy, fm.mergeKey, isDeleteList, opts)
		default:
			var keep bool
			original[k], keep = removeDirectives(patchV)
			if !keep {
				delete(original, k)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return original, nil
}

func handleDirectiveInMergeMap(directive any, patch map[string]any) (map[string]any, error) {
	if s, ok := directive.(string); ok {
		switch s {
		case replaceDirective:
			delete(patch, directiveMarker)
			return patch, nil
		case deleteDirective:
			return map[string]any{}, nil
		}
	}
	return nil, errBadPatchType(directive, patch)
}

func containsDirectiveMarker(item any) bool {
	if m, ok := item.(map[string]any); ok {
		_, found := m[directiveMarker]
		return found
	}
	return false
}

func mergeKeyValueEqual(left, right any, mergeKey string) (bool, error) {
	if len(mergeKey) == 0 {
		return ifaceEq(left, right)
	}
	l, ok := left.(map[string]any)
	if !ok {
		return false, errBadArgType(mapTypeName, left)
	}
	r, ok := right.(map[string]any)
	if !ok {
		return false, errBadArgType(mapTypeName, right)
	}
	lv, ok := l[mergeKey]
	if !ok {
		return false, errNoMergeKey(l, mergeKey)
	}
	rv, ok := r[mergeKey]
	if !ok {
		return false, errNoMergeKey(r, mergeKey)
	}
	return ifaceEq(lv, rv)
}

func extractKey(s, prefix string) (string, error) {
	before, after, found := strings.Cut(s, "/")
	if !found || before != prefix {
		switch prefix {
		case deleteFromPrimitiveListDirectivePrefix:
			return "", ErrBadPatchFormatForPrimitiveList
		case setElementOrderDirectivePrefix:
			return "", ErrBadPatchFormatForSetElementOrderList
		default:
			return "", fmt.Errorf("fail to find unknown prefix %q in %s\n", prefix, s)
		}
	}
	return after, nil
}

func validatePatchWithSetOrderList(patchList []any, setOrderList any, mergeKey string) error {
	order, ok := setOrderList.([]any)
	if !ok {
		return ErrBadPatchFormatForSetElementOrderList
	}
	if len(order) == 0 || len(patchList) == 0 {
		return nil
	}
	nonDelete := patchList
	if len(mergeKey) > 0 {
		var err error
		if nonDelete, _, err = extractToDeleteItems(patchList); err != nil {
			return err
		}
	}
	pi, oi := 0, 0
	for pi < len(nonDelete) && oi < len(order) {
		if containsDirectiveMarker(nonDelete[pi]) {
			pi++
			continue
		}
		eq, err := mergeKeyValueEqual(nonDelete[pi], order[oi], mergeKey)
		if err != nil {
			return err
		}
		if eq {
			pi++
		}
		oi++
	}
	if pi < len(nonDelete) && oi >= len(order) {
		return fmt.Errorf("The order in patch list:\n%v\n doesn't match %s list:\n%v\n", patchList, setElementOrderDirectivePrefix, setOrderList)
	}
	return nil
}

func applyRetainKeysDirective(original, patch map[string]any, opts mergeOptions) error {
	inPatch, found := patch[retainKeysDirective]
	if !found {
		return nil
	}
	delete(patch, retainKeysDirective)
	if !opts.mergeParallelList {
		if inOriginal, ok := original[retainKeysDirective]; ok {
			if !reflect.DeepEqual(inOriginal, inPatch) {
				return fmt.Errorf("%v and %v are not deep equal: this may happen when calculating the 3-way diff patch", inOriginal, inPatch)
			}
		} else {
			original[retainKeysDirective] = inPatch
		}
		return nil
	}
	list, ok := inPatch.([]any)
	if !ok {
		return ErrBadPatchFormatForRetainKeys
	}
	keep := map[any]struct{}{}
	for _, v := range list {
		if !hashable(v) {
			return ErrServerPanics
		}
		keep[v] = struct{}{}
	}
	for _, k := range sortedKeys(patch) {
		v := patch[k]
		if v == nil || strings.HasPrefix(k, deleteFromPrimitiveListDirectivePrefix) || strings.HasPrefix(k, setElementOrderDirectivePrefix) {
			continue
		}
		if _, ok := keep[k]; !ok {
			return ErrBadPatchFormatForRetainKeys
		}
	}
	for k := range original {
		if _, ok := keep[k]; !ok {
			delete(original, k)
		}
	}
	return nil
}

func mergePatchIntoOriginal(original, patch map[string]any, meta Meta, opts mergeOptions) error {
	// The reference visits every key of the patch and acts on the
	// $setElementOrder ones: visit those, in the same (sorted) order.
	var orderKeys []string
	for key := range patch {
		if strings.HasPrefix(key, setElementOrderDirectivePrefix) {
			orderKeys = append(orderKeys, key)
		}
	}
	sort.Strings(orderKeys)
	for _, key := range orderKeys {
		patchV, present := patch[key]
		if !present {
			continue
		}
		setElementOrderInPatch := patchV
		if !opts.mergeParallelList {
			if inOriginal, ok := original[key]; ok {
				if !reflect.DeepEqual(inOriginal, setElementOrderInPatch) {
					return ErrBadPatchFormatForSetElementOrderList
				}
			} else {
				original[key] = setElementOrderInPatch
			}
		}
		delete(patch, key)

		order, ok := setElementOrderInPatch.([]any)
		if !ok {
			return errBadArgType(sliceTypeName, setElementOrderInPatch)
		}
		originalKey, err := extractKey(key, setElementOrderDirectivePrefix)
		if err != nil {
			return err
		}
		var originalFieldValue, patchFieldValue, merged []any
		originalList, foundOriginal := original[originalKey]
		patchList, foundPatch := patch[originalKey]
		if foundOriginal {
			if originalFieldValue, ok = originalList.([]any); !ok {
				return errBadArgType(sliceTypeName, originalList)
			}
		}
		if foundPatch {
			if patchFieldValue, ok = patchList.([]any); !ok {
				return errBadArgType(sliceTypeName, patchList)
			}
		}
		sub, fm, err := lookupSlice(meta, originalKey)
		if err != nil {
			return err
		}
		_, strategy, err := fm.retainKeysStrategy()
		if err != nil {
			return err
		}
		if err := validatePatchWithSetOrderList(patchFieldValue, order, fm.mergeKey); err != nil {
			return err
		}
		switch {
		case foundOriginal && !foundPatch:
			merged = originalFieldValue
		case !foundOriginal && foundPatch:
			v, keep := removeDirectives(patchFieldValue)
			if !keep {
				continue
			}
			merged = v.([]any)
		case foundOriginal && foundPatch:
			if merged, err = mergeSliceHandler(originalList, patchList, sub, strategy, fm.mergeKey, false, opts); err != nil {
				return err
			}
		default:
			continue
		}
		var patchItems, serverOnly []any
		if len(fm.mergeKey) == 0 {
			if patchItems, serverOnly, err = partitionPrimitivesByPresentInList(merged, order); err != nil {
				return err
			}
		} else if patchItems, serverOnly, err = partitionMapsByPresentInList(merged, order, fm.mergeKey, opts.stats); err != nil {
			return err
		}
		elemType, err := sliceElementType(originalFieldValue, patchFieldValue)
		if err != nil {
			return err
		}
		both, err := normalizeElementOrder(patchItems, serverOnly, order, originalFieldValue, fm.mergeKey, elemType, opts.stats)
		if err != nil {
			return err
		}
		original[originalKey] = both
		delete(patch, originalKey)
	}
	return nil
}

func partitionPrimitivesByPresentInList(original, partitionBy []any) ([]any, []any, error) {
	patch := make([]any, 0, len(original))
	serverOnly := make([]any, 0, len(original))
	in := map[any]bool{}
	for _, v := range partitionBy {
		if !hashable(v) {
			return nil, nil, ErrServerPanics
		}
		in[v] = true
	}
	for _, v := range original {
		if !hashable(v) {
			return nil, nil, ErrServerPanics
		}
		if !in[v] {
			serverOnly = append(serverOnly, v)
		} else {
			patch = append(patch, v)
		}
	}
	return patch, serverOnly, nil
}

func partitionMapsByPresentInList(original, partitionBy []any, mergeKey string, stats *mergeStats) ([]any, []any, error) {
	patch := make([]any, 0, len(original))
	serverOnly := make([]any, 0, len(original))
	in := newMapIndex(partitionBy, mergeKey, stats)
	for _, v := range original {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, errBadArgType(mapTypeName, v)
		}
		mv, ok := m[mergeKey]
		if !ok {
			return nil, nil, errNoMergeKey(m, mergeKey)
		}
		_, _, found, err := in.find(mv)
		if err != nil {
			return nil, nil, err
		}
		if found {
			patch = append(patch, v)
		} else {
			serverOnly = append(serverOnly, v)
		}
	}
	return patch, serverOnly, nil
}

// removeDirectives drops directive maps from a value (in place) and reports
// whether the value itself is kept.
func removeDirectives(obj any) (any, bool) {
	switch t := obj.(type) {
	case nil:
		return obj, true
	case map[string]any:
		if _, ok := t[directiveMarker]; ok {
			return nil, false
		}
		for _, k := range sortedKeys(t) {
			var keep bool
			t[k], keep = removeDirectives(t[k])
			if !keep {
				delete(t, k)
			}
		}
		return t, true
	case []any:
		var res []any
		if t != nil {
			res = []any{}
		}
		for _, v := range t {
			if nv, keep := removeDirectives(v); keep {
				res = append(res, nv)
			}
		}
		return res, true
	}
	return obj, true
}

func discardNullValuesFromPatch(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
			} else {
				discardNullValuesFromPatch(e)
			}
		}
	case []any:
		for _, e := range t {
			discardNullValuesFromPatch(e)
		}
	}
}

func mergeMapHandler(original, patch any, meta Meta, strategy string, opts mergeOptions) (map[string]any, error) {
	o, ok := original.(map[string]any)
	if !ok {
		return nil, errBadArgType(mapTypeName, original)
	}
	p, ok := patch.(map[string]any)
	if !ok {
		return nil, errBadArgType(mapTypeName, patch)
	}
	if strategy != replaceDirective {
		return mergeMap(o, p, meta, opts)
	}
	return p, nil
}

func mergeSliceHandler(original, patch any, meta Meta, strategy, mergeKey string, isDeleteList bool, opts mergeOptions) ([]any, error) {
	o, ok := original.([]any)
	if !ok {
		return nil, errBadArgType(sliceTypeName, original)
	}
	p, ok := patch.([]any)
	if !ok {
		return nil, errBadArgType(sliceTypeName, patch)
	}
	if strategy == mergeDirective || isDeleteList {
		return mergeSlice(o, p, meta, mergeKey, opts, isDeleteList)
	}
	return p, nil
}

func mergeSlice(original, patch []any, meta Meta, mergeKey string, opts mergeOptions, isDeleteList bool) ([]any, error) {
	if len(original) == 0 && len(patch) == 0 {
		return original, nil
	}
	t, err := sliceElementType(original, patch)
	if err != nil {
		return nil, err
	}
	var merged []any
	if t != kindMap {
		if opts.mergeParallelList && isDeleteList {
			return deleteFromSlice(original, patch)
		}
		both := append(original, patch...)
		if merged, err = deduplicateScalars(both, opts.stats); err != nil {
			return nil, err
		}
	} else {
		if mergeKey == "" {
			return nil, fmt.Errorf("cannot merge lists without merge key for %s", meta.Name())
		}
		if original, patch, err = mergeSliceWithSpecialElements(original, patch, mergeKey, opts.stats); err != nil {
			return nil, err
		}
		if merged, err = mergeSliceWithoutSpecialElements(original, patch, mergeKey, meta, opts); err != nil {
			return nil, err
		}
	}
	var patchItems, serverOnly []any
	if len(mergeKey) == 0 {
		patchItems, serverOnly, err = partitionPrimitivesByPresentInList(merged, patch)
	} else {
		patchItems, serverOnly, err = partitionMapsByPresentInList(merged, patch, mergeKey, opts.stats)
	}
	if err != nil {
		return nil, err
	}
	return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, t, opts.stats)
}

func mergeSliceWithSpecialElements(original, patch []any, mergeKey string, stats *mergeStats) ([]any, []any, error) {
	without := []any{}
	replace := false
	deletions := &pendingDeletions{original: original, mergeKey: mergeKey, stats: stats}
	for _, v := range patch {
		m := v.(map[string]any)
		pt, ok := m[directiveMarker]
		if !ok {
			without = append(without, v)
			continue
		}
		s, isString := pt.(string)
		if !isString {
			return nil, nil, errBadPatchType(pt, m)
		}
		switch s {
		case deleteDirective:
			mv, ok := m[mergeKey]
			if !ok {
				return nil, nil, errNoMergeKey(m, mergeKey)
			}
			if err := deletions.delete(mv); err != nil {
				return nil, nil, err
			}
		case replaceDirective:
			replace = true
		case mergeDirective:
			return nil, nil, fmt.Errorf("merging lists cannot yet be specified in the patch")
		default:
			return nil, nil, errBadPatchType(pt, m)
		}
	}
	if replace {
		return without, nil, nil
	}
	original, err := deletions.flush()
	if err != nil {
		return nil, nil, err
	}
	return original, without, nil
}

func mergeSliceWithoutSpecialElements(original, patch []any, mergeKey string, meta Meta, opts mergeOptions) ([]any, error) {
	in := newMapIndex(original, mergeKey, opts.stats)
	for _, v := range patch {
		m := v.(map[string]any)
		mv, ok := m[mergeKey]
		if !ok {
			return nil, errNoMergeKey(m, mergeKey)
		}
		om, i, found, err := in.find(mv)
		if err != nil {
			return nil, err
		}
		if found {
			merged, err := mergeMap(om, m, meta, opts)
			if err != nil {
				return nil, err
			}
			in.set(i, merged)
		} else {
			in.add(v)
		}
	}
	return in.list, nil
}

func deleteFromSlice(current, toDelete []any) ([]any, error) {
	del := map[any]any{}
	out := make([]any, 0, len(current))
	for _, v := range toDelete {
		if !hashable(v) {
			return nil, ErrServerPanics
		}
		del[v] = true
	}
	for _, v := range current {
		if !hashable(v) {
			return nil, ErrServerPanics
		}
		if _, found := del[v]; !found {
			out = append(out, v)
		}
	}
	return out, nil
}

func findMapInSliceBasedOnKeyValue(list []any, key string, value any) (map[string]any, int, bool, error) {
	for i, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, 0, false, fmt.Errorf("value for key %v is not a map", i)
		}
		if vm, ok := m[key]; ok {
			eq, err := ifaceEq(vm, value)
			if err != nil {
				return nil, 0, false, err
			}
			if eq {
				return m, i, true, nil
			}
		}
	}
	return nil, 0, false, nil
}

// elemKind is the reflect kind of a list's elements as sliceElementType sees it.
type elemKind int

const (
	kindScalar elemKind = iota
	kindMap
)

// sliceElementType checks that all elements of the lists have one Go type
// that is not a list, and returns whether it is a map.
func sliceElementType(lists ...[]any) (elemKind, error) {
	var prev reflect.Type
	seen := false
	for _, s := range lists {
		for _, v := range s {
			cur := reflect.TypeOf(v)
			if !seen {
				seen = true
				if cur == nil {
					// The reference calls Kind on the nil reflect.Type.
					return 0, ErrServerPanics
				}
				prev = cur
				if cur.Kind() == reflect.Slice {
					return 0, ErrNoListOfLists
				}
			} else if prev != cur {
				return 0, fmt.Errorf("list element types are not identical: %v", fmt.Sprint(lists))
			}
		}
	}
	if !seen {
		return 0, fmt.Errorf("no elements in any of the given slices")
	}
	if prev.Kind() == reflect.Map {
		return kindMap, nil
	}
	return kindScalar, nil
}

func normalizeElementOrder(patch, serverOnly, patchOrder, serverOrder []any, mergeKey string, kind elemKind, stats *mergeStats) ([]any, error) {
	patch, err := normalizeSliceOrder(patch, patchOrder, mergeKey, kind, stats)
	if err != nil {
		return nil, err
	}
	serverOnly, err = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind, stats)
	if err != nil {
		return nil, err
	}
	return mergeSortedSlice(serverOnly, patch, serverOrder, mergeKey, kind, stats)
}

func mergeSortedSlice(left, right, serverOrder []any, mergeKey string, kind elemKind, stats *mergeStats) ([]any, error) {
	order := newOrderIndex(serverOrder, mergeKey, kind, stats)
	less := func(l, r any) (bool, bool, error) {
		li, err := order.index(l)
		if err != nil {
			return false, false, err
		}
		ri, err := order.index(r)
		if err != nil {
			return false, false, err
		}
		if li >= 0 && ri >= 0 {
			return li < ri, true, nil
		}
		return false, false, nil
	}
	size := len(left) + len(right)
	i, j := 0, 0
	s := make([]any, size)
	for k := 0; k < size; k++ {
		switch {
		case i >= len(left) && j < len(right):
			s[k] = right[j]
			j++
		case j >= len(right) && i < len(left):
			s[k] = left[i]
			i++
		default:
			isLess, both, err := less(left[i], right[j])
			if err != nil {
				return nil, err
			}
			if both && isLess {
				s[k] = left[i]
				i++
			} else {
				s[k] = right[j]
				j++
			}
		}
	}
	return s, nil
}

func index(l []any, val any, mergeKey string, kind elemKind) (int, error) {
	get := func(item any) any { return item }
	if kind == kindMap {
		get = func(item any) any {
			m, ok := item.(map[string]any)
			if !ok {
				return nil
			}
			return m[mergeKey]
		}
	}
	want := get(val)
	for i, v := range l {
		eq, err := ifaceEq(want, get(v))
		if err != nil {
			return 0, err
		}
		if eq {
			return i, nil
		}
	}
	return -1, nil
}

func extractToDeleteItems(l []any) ([]any, []any, error) {
	var nonDelete, toDelete []any
	for _, v := range l {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, errBadArgType(mapTypeName, v)
		}
		if d, found := m[directiveMarker]; found && d == any(deleteDirective) {
			toDelete = append(toDelete, v)
		} else {
			nonDelete = append(nonDelete, v)
		}
	}
	return nonDelete, toDelete, nil
}

func validateMergeKeyInLists(mergeKey string, lists ...[]any) error {
	for _, list := range lists {
		for _, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				return errBadArgType(mapTypeName, item)
			}
			if _, ok := m[mergeKey]; !ok {
				return errNoMergeKey(m, mergeKey)
			}
		}
	}
	return nil
}

func normalizeSliceOrder(toSort, order []any, mergeKey string, kind elemKind, stats *mergeStats) ([]any, error) {
	var toDelete []any
	if kind == kindMap {
		if err := validateMergeKeyInLists(mergeKey, toSort, order); err != nil {
			return nil, err
		}
		var err error
		if toSort, toDelete, err = extractToDeleteItems(toSort); err != nil {
			return nil, err
		}
	}
	if len(toSort) > 1 {
		// sort.Stable runs the algorithm the reference's sort.SliceStable
		// runs (the same generated code), so the same comparisons give the
		// same order, without SliceStable's reflection.
		o := &orderSorter{s: toSort, order: newOrderIndex(order, mergeKey, kind, stats)}
		sort.Stable(o)
		if o.err != nil {
			return nil, o.err
		}
	}
	return append(toSort, toDelete...), nil
}

// orderSorter is the reference's normalizeSliceOrder comparison: elements
// found in order sort by their position there; any other pair compares as
// "less". The first error stops the comparisons.
type orderSorter struct {
	s     []any
	order *orderIndex
	err   error
}

func (o *orderSorter) Len() int      { return len(o.s) }
func (o *orderSorter) Swap(i, j int) { o.s[i], o.s[j] = o.s[j], o.s[i] }
func (o *orderSorter) Less(i, j int) bool {
	if o.err != nil {
		return false
	}
	ii, err := o.order.index(o.s[i])
	if err != nil {
		o.err = err
		return false
	}
	if ii >= 0 {
		ij, err := o.order.index(o.s[j])
		if err != nil {
			o.err = err
			return false
		}
		if ij >= 0 {
			return ii < ij
		}
	}
	return true
}

// scalarSorter is the reference's SortableSliceOfScalars: it orders by the
// %v text with a "less or equal" comparison, run through sort.Sort.
type scalarSorter struct {
	s    []any
	text []string
}

func (ss scalarSorter) Len() int           { return len(ss.s) }
func (ss scalarSorter) Less(i, j int) bool { return ss.text[i] <= ss.text[j] }
func (ss scalarSorter) Swap(i, j int) {
	ss.s[i], ss.s[j] = ss.s[j], ss.s[i]
	ss.text[i], ss.text[j] = ss.text[j], ss.text[i]
}

func sortScalars(s []any) []any {
	text := make([]string, len(s))
	for i, v := range s {
		text[i] = fmt.Sprintf("%v", v)
	}
	sort.Sort(scalarSorter{s, text})
	return s
}

// mapSorter is the reference's SortableSliceOfMaps: by the %v text of the
// merge key's value, "less or equal", through sort.Sort.
type mapSorter struct {
	s    []map[string]any
	text []string
}

func (ms mapSorter) Len() int           { return len(ms.s) }
func (ms mapSorter) Less(i, j int) bool { return ms.text[i] <= ms.text[j] }
func (ms mapSorter) Swap(i, j int) {
	ms.s[i], ms.s[j] = ms.s[j], ms.s[i]
	ms.text[i], ms.text[j] = ms.text[j], ms.text[i]
}

func sortMapsBasedOnField(list []any, field string) []any {
	ms := []map[string]any{}
	for _, v := range list {
		ms = append(ms, v.(map[string]any))
	}
	text := make([]string, len(ms))
	for i, m := range ms {
		text[i] = fmt.Sprintf("%v", m[field])
	}
	sort.Sort(mapSorter{ms, text})
	out := []any{}
	for _, m := range ms {
		out = append(out, m)
	}
	return out
}

func deduplicateAndSortScalars(s []any) ([]any, error) {
	s, err := deduplicateScalars(s, nil)
	if err != nil {
		return nil, err
	}
	return sortScalars(s), nil
}
