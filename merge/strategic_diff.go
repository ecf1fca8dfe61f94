package merge

import (
	"fmt"
	"reflect"
)

// Strategic merge patch creation, with strategicpatch's semantics (diffMaps
// and friends): the two-way patch kubectl sends for edits, and the three-way
// patch of kubectl apply.

type diffOptions struct {
	setElementOrder           bool
	ignoreChangesAndAdditions bool
	ignoreDeletions           bool
	buildRetainKeysDirective  bool
	// sortInPlace sorts original's primitive lists in place, as the
	// reference does; set when the caller owns original and later output
	// shows those lists (the three-way conflict message).
	sortInPlace bool
}

func diffMaps(original, modified map[string]any, meta Meta, opts diffOptions) (map[string]any, error) {
	patch := map[string]any{}
	retainKeysList := make([]any, 0, len(modified))
	for _, key := range sortedKeys(modified) {
		modifiedValue := modified[key]
		if opts.buildRetainKeysDirective && modifiedValue != nil {
			retainKeysList = append(retainKeysList, key)
		}
		originalValue, ok := original[key]
		if !ok {
			if !opts.ignoreChangesAndAdditions {
				patch[key] = modifiedValue
			}
			continue
		}
		if key == directiveMarker {
			os, ok1 := originalValue.(string)
			ms, ok2 := modifiedValue.(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("invalid value for special key: %s", directiveMarker)
			}
			if ms != os {
				patch[directiveMarker] = modifiedValue
			}
			continue
		}
		if reflect.TypeOf(originalValue) != reflect.TypeOf(modifiedValue) {
			if !opts.ignoreChangesAndAdditions {
				patch[key] = modifiedValue
			}
			continue
		}
		var err error
		switch ov := originalValue.(type) {
		case map[string]any:
			err = handleMapDiff(key, ov, modifiedValue.(map[string]any), patch, meta, opts)
		case []any:
			err = handleSliceDiff(key, ov, modifiedValue.([]any), patch, meta, opts)
		default:
			replacePatchFieldIfNotEqual(key, originalValue, modifiedValue, patch, opts)
		}
		if err != nil {
			return nil, err
		}
	}
	if !opts.ignoreDeletions {
		for key := range original {
			if _, found := modified[key]; !found {
				patch[key] = nil
			}
		}
	}
	if len(retainKeysList) > 0 && (len(patch) > 0 || hasAdditionalNewField(original, modified)) {
		patch[retainKeysDirective] = sortScalars(retainKeysList)
	}
	return patch, nil
}

func handleMapDiff(key string, original, modified, patch map[string]any, meta Meta, opts diffOptions) error {
	sub, fm, err := lookupStruct(meta, key)
	if err != nil {
		if reflect.DeepEqual(original, modified) {
			return nil
		}
		return err
	}
	retainKeys, strategy, err := fm.retainKeysStrategy()
	if err != nil {
		return err
	}
	opts.buildRetainKeysDirective = retainKeys
	if strategy == replaceDirective {
		if !opts.ignoreChangesAndAdditions {
			patch[key] = modified
		}
		return nil
	}
	pv, err := diffMaps(original, modified, sub, opts)
	if err != nil {
		return err
	}
	if len(pv) > 0 {
		patch[key] = pv
	}
	return nil
}

func handleSliceDiff(key string, original, modified []any, patch map[string]any, meta Meta, opts diffOptions) error {
	sub, fm, err := lookupSlice(meta, key)
	if err != nil {
		if reflect.DeepEqual(original, modified) {
			return nil
		}
		return err
	}
	retainKeys, strategy, err := fm.retainKeysStrategy()
	if err != nil {
		return err
	}
	if strategy != mergeDirective {
		replacePatchFieldIfNotEqual(key, original, modified, patch, opts)
		return nil
	}
	opts.buildRetainKeysDirective = retainKeys
	addList, deletionList, setOrderList, err := diffLists(original, modified, sub, fm.mergeKey, opts)
	if err != nil {
		return err
	}
	if len(addList) > 0 {
		patch[key] = addList
	}
	if len(deletionList) > 0 {
		patch[deleteFromPrimitiveListDirectivePrefix+"/"+key] = deletionList
	}
	if len(setOrderList) > 0 {
		patch[setElementOrderDirectivePrefix+"/"+key] = setOrderList
	}
	return nil
}

func replacePatchFieldIfNotEqual(key string, original, modified any, patch map[string]any, opts diffOptions) {
	if opts.ignoreChangesAndAdditions || reflect.DeepEqual(original, modified) {
		return
	}
	patch[key] = modified
}

func hasAdditionalNewField(original, modified map[string]any) bool {
	for k, v := range original {
		if v == nil {
			continue
		}
		if _, found := modified[k]; !found {
			return true
		}
	}
	return false
}

func diffLists(original, modified []any, meta Meta, mergeKey string, opts diffOptions) ([]any, []any, []any, error) {
	if len(original) == 0 {
		if len(modified) == 0 || opts.ignoreChangesAndAdditions {
			return nil, nil, nil, nil
		}
		return modified, nil, nil, nil
	}
	kind, err := sliceElementType(original, modified)
	if err != nil {
		return nil, nil, nil, err
	}
	var patchList, deleteList, setOrderList []any
	if kind == kindMap {
		if patchList, deleteList, err = diffListsOfMaps(original, modified, meta, mergeKey, opts); err != nil {
			return nil, nil, nil, err
		}
		if patchList, err = normalizeSliceOrder(patchList, modified, mergeKey, kind, nil); err != nil {
			return nil, nil, nil, err
		}
		orderSame, err := isOrderSame(original, modified, mergeKey)
		if err != nil {
			return nil, nil, nil, err
		}
		patchList = append(patchList, deleteList...)
		deleteList = nil
		if opts.setElementOrder &&
			((!opts.ignoreChangesAndAdditions && (len(patchList) > 0 || !orderSame)) ||
				(!opts.ignoreDeletions && len(patchList) > 0)) {
			setOrderList = make([]any, len(modified))
			for i, v := range modified {
				setOrderList[i] = map[string]any{mergeKey: v.(map[string]any)[mergeKey]}
			}
		}
		return patchList, deleteList, setOrderList, nil
	}
	var sortedOriginal []any
	if patchList, deleteList, sortedOriginal, err = diffListsOfScalars(original, modified, opts); err != nil {
		return nil, nil, nil, err
	}
	original = sortedOriginal
	patchList, err = normalizeSliceOrder(patchList, modified, mergeKey, kind, nil)
	if opts.setElementOrder && ((!opts.ignoreDeletions && len(deleteList) > 0) ||
		(!opts.ignoreChangesAndAdditions && !reflect.DeepEqual(original, modified))) {
		setOrderList = modified
	}
	return patchList, deleteList, setOrderList, err
}

func isOrderSame(original, modified []any, mergeKey string) (bool, error) {
	if len(original) != len(modified) {
		return false, nil
	}
	for i, m := range modified {
		eq, err := mergeKeyValueEqual(original[i], m, mergeKey)
		if err != nil || !eq {
			return eq, err
		}
	}
	return true, nil
}

// diffListsOfScalars sorts original in place, as the reference does (later
// comparisons of the same list see it sorted).
func diffListsOfScalars(original, modified []any, opts diffOptions) ([]any, []any, []any, error) {
	modifiedCopy := make([]any, len(modified))
	copy(modifiedCopy, modified)
	// The reference sorts original in place; sorting a copy keeps the caller's
	// document intact, and every later reader of the list sorts it again.
	o := original
	if !opts.sortInPlace {
		o = append(make([]any, 0, len(original)), original...)
	}
	o = sortScalars(o)
	m := sortScalars(modifiedCopy)
	oi, mi := 0, 0
	addList := []any{}
	deletionList := []any{}
	for {
		oin, min := oi < len(o), mi < len(m)
		if !oin && !min {
			break
		}
		var os, ms string
		var ov, mv any
		if oin {
			ov = o[oi]
			os = fmt.Sprintf("%v", ov)
		}
		if min {
			mv = m[mi]
			ms = fmt.Sprintf("%v", mv)
		}
		both := oin && min
		switch {
		case both && os == ms:
			oi++
			mi++
		case !oin || (both && os > ms):
			if !opts.ignoreChangesAndAdditions {
				addList = append(addList, mv)
			}
			mi++
		default: // !min || os < ms
			if !opts.ignoreDeletions {
				deletionList = append(deletionList, ov)
			}
			oi++
		}
	}
	dl, err := deduplicateScalars(deletionList, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	return addList, dl, o, nil
}

func diffListsOfMaps(original, modified []any, meta Meta, mergeKey string, opts diffOptions) ([]any, []any, error) {
	patch := make([]any, 0, len(modified))
	deletionList := make([]any, 0, len(original))
	os, err := sortMergeListsByNameArray(original, mergeKey)
	if err != nil {
		return nil, nil, err
	}
	ms, err := sortMergeListsByNameArray(modified, mergeKey)
	if err != nil {
		return nil, nil, err
	}
	oi, mi := 0, 0
	for {
		oin, min := oi < len(os), mi < len(ms)
		if !oin && !min {
			break
		}
		var oKey, mKey string
		var oVal, mVal any
		var oElem, mElem map[string]any
		if oin {
			if oElem, oVal, err = mapAndMergeKeyValue(oi, mergeKey, os); err != nil {
				return nil, nil, err
			}
			oKey = fmt.Sprintf("%v", oVal)
		}
		if min {
			if mElem, mVal, err = mapAndMergeKeyValue(mi, mergeKey, ms); err != nil {
				return nil, nil, err
			}
			mKey = fmt.Sprintf("%v", mVal)
		}
		both := oin && min
		switch {
		case both && oKey == mKey:
			pv, err := diffMaps(oElem, mElem, meta, opts)
			if err != nil {
				return nil, nil, err
			}
			if len(pv) > 0 {
				pv[mergeKey] = mVal
				patch = append(patch, pv)
			}
			oi++
			mi++
		case !oin || (both && oKey > mKey):
			if !opts.ignoreChangesAndAdditions {
				patch = append(patch, mElem)
			}
			mi++
		default:
			if !opts.ignoreDeletions {
				deletionList = append(deletionList, map[string]any{mergeKey: oVal, directiveMarker: deleteDirective})
			}
			oi++
		}
	}
	return patch, deletionList, nil
}

func mapAndMergeKeyValue(i int, mergeKey string, list []any) (map[string]any, any, error) {
	m, ok := list[i].(map[string]any)
	if !ok {
		return nil, nil, errBadArgType(mapTypeName, list[i])
	}
	v, ok := m[mergeKey]
	if !ok {
		return nil, nil, errNoMergeKey(m, mergeKey)
	}
	return m, v, nil
}

// sortMergeListsByNameArray is the reference's non-recursive sort of a list
// by merge key (scalars: deduplicated and sorted in place).
func sortMergeListsByNameArray(s []any, mergeKey string) ([]any, error) {
	if len(s) == 0 {
		return s, nil
	}
	kind, err := sliceElementType(s)
	if err != nil {
		return nil, err
	}
	if kind != kindMap {
		return deduplicateAndSortScalars(s)
	}
	out := []any{}
	out = append(out, s...)
	return sortMapsBasedOnField(out, mergeKey), nil
}

// mergingMapsHaveConflicts is strategicpatch.MergingMapsHaveConflicts.
func mergingMapsHaveConflicts(left, right map[string]any, meta Meta) (bool, error) {
	return mergingFieldsHaveConflicts(left, right, meta, "", "")
}

func mergingFieldsHaveConflicts(left, right any, meta Meta, strategy, mergeKey string) (bool, error) {
	switch l := left.(type) {
	case map[string]any:
		r, ok := right.(map[string]any)
		if !ok {
			return true, nil
		}
		lm, okL := l[directiveMarker]
		rm, okR := r[directiveMarker]
		if okL || okR {
			if okL != okR {
				return true, nil
			}
			eq, err := ifaceEq(lm, rm)
			if err != nil {
				return true, err
			}
			if !eq {
				return true, nil
			}
		}
		if strategy == replaceDirective {
			return false, nil
		}
		return mapsHaveConflicts(l, r, meta)
	case []any:
		r, ok := right.([]any)
		if !ok {
			return true, nil
		}
		return slicesHaveConflicts(l, r, meta, strategy, mergeKey)
	case string, float64, bool, int64, nil:
		return !reflect.DeepEqual(left, right), nil
	}
	return true, fmt.Errorf("unknown type: %v", reflect.TypeOf(left))
}

func mapsHaveConflicts(l, r map[string]any, meta Meta) (bool, error) {
	for _, key := range sortedKeys(l) {
		lv := l[key]
		if key == directiveMarker || key == retainKeysDirective {
			continue
		}
		rv, ok := r[key]
		if !ok {
			continue
		}
		var sub Meta
		var fm fieldInfo
		var strategy string
		var err error
		switch lv.(type) {
		case []any:
			if sub, fm, err = lookupSlice(meta, key); err != nil {
				return true, err
			}
			if _, strategy, err = fm.retainKeysStrategy(); err != nil {
				return true, err
			}
		case map[string]any:
			if sub, fm, err = lookupStruct(meta, key); err != nil {
				return true, err
			}
			if _, strategy, err = fm.retainKeysStrategy(); err != nil {
				return true, err
			}
		}
		if c, err := mergingFieldsHaveConflicts(lv, rv, sub, strategy, fm.mergeKey); c {
			return true, err
		}
	}
	return false, nil
}

func slicesHaveConflicts(l, r []any, meta Meta, strategy, mergeKey string) (bool, error) {
	kind, err := sliceElementType(l, r)
	if err != nil {
		return true, err
	}
	if strategy == mergeDirective {
		if kind != kindMap {
			return false, nil
		}
		lm, err := sliceOfMapsToMapOfMaps(l, mergeKey)
		if err != nil {
			return true, err
		}
		rm, err := sliceOfMapsToMapOfMaps(r, mergeKey)
		if err != nil {
			return true, err
		}
		for _, k := range sortedKeys(lm) {
			if rv, ok := rm[k]; ok {
				if c, err := mergingFieldsHaveConflicts(lm[k], rv, meta, "", ""); c {
					return true, err
				}
			}
		}
		return false, nil
	}
	if len(l) != len(r) {
		return true, nil
	}
	if kind != kindMap {
		// In place, as the reference (the sorted lists show in the conflict
		// message and in the patch); the caller passes copies it owns.
		if l, err = deduplicateAndSortScalars(l); err != nil {
			return true, err
		}
		if r, err = deduplicateAndSortScalars(r); err != nil {
			return true, err
		}
	}
	for i := range l {
		if i >= len(r) {
			// Deduplication can leave r shorter; the reference indexes past
			// its end and panics.
			return true, ErrServerPanics
		}
		if c, err := mergingFieldsHaveConflicts(l[i], r[i], meta, "", ""); c {
			return true, err
		}
	}
	return false, nil
}

func sliceOfMapsToMapOfMaps(slice []any, mergeKey string) (map[string]any, error) {
	out := make(map[string]any, len(slice))
	for _, v := range slice {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("invalid element type in merging list:%v", slice)
		}
		mv, ok := m[mergeKey]
		if !ok {
			return nil, fmt.Errorf("cannot find merge key `%s` in merging list element:%v", mergeKey, m)
		}
		out[fmt.Sprintf("%s", mv)] = m
	}
	return out, nil
}
