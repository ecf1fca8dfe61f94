package cel

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/writepath/writepath/schema"
)

// ValueOf wraps a value of the object model (nil, bool, int64, float64, string, []any,
// map[string]any) typed by its structural schema as a CEL value, as the apiserver's
// UnstructuredToVal does: objects expose their escaped property names, additionalProperties
// are maps, lists compare and concatenate by x-kubernetes-list-type, strings with format
// byte/duration/date/date-time become bytes/duration/timestamp, int-or-string stays as written.
// The value is read, never modified or retained beyond the returned value.
func ValueOf(v any, s *schema.Structural) ref.Val {
	if v == nil {
		if s.Nullable {
			return types.NullValue
		}
		return types.NewErr("invalid data, got null for schema with nullable=false")
	}
	if s.XIntOrString {
		switch x := v.(type) {
		case string:
			return types.String(x)
		case int64:
			return types.Int(x)
		case int:
			return types.Int(x)
		case int32:
			return types.Int(x)
		}
		return types.NewErr("invalid data, expected XIntOrString value to be either a string or integer")
	}
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return types.NewErr("invalid data, expected a map for the provided schema with type=object")
		}
		if s.XEmbeddedResource || s.Properties != nil {
			if s.XEmbeddedResource {
				s = withTypeAndObjectMeta(s)
			}
			return &objectVal{value: m, schema: s, isObject: true}
		}
		if ap := s.AdditionalPropertiesSchema(); ap != nil {
			return &objectVal{value: m, schema: s, additional: ap}
		}
		return &objectVal{value: m, schema: s}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return types.NewErr("invalid data, expected an array for the provided schema with type=array")
		}
		if s.Items == nil {
			return types.NewErr("invalid array type, expected Items with a non-empty Schema")
		}
		base := listVal{elements: l, items: s.Items}
		switch s.XListType {
		case "":
			return &base
		case "map":
			return &mapListVal{listVal: base, keys: escapeKeyProps(s.XListMapKeys)}
		case "set":
			return &setListVal{listVal: base}
		case "atomic":
			return &base
		}
		return types.NewErr("invalid x-kubernetes-list-type, expected 'map', 'set' or 'atomic' but got %s", s.XListType)
	case "string":
		str, ok := v.(string)
		if !ok {
			return types.NewErr("invalid data, expected string, got %T", v)
		}
		format := ""
		if s.ValueValidation != nil {
			format = s.ValueValidation.Format
		}
		switch format {
		case "duration":
			d, err := schema.ParseDuration(str)
			if err != nil {
				return types.NewErr("Invalid duration %s: %v", str, err)
			}
			return types.Duration{Duration: d}
		case "date":
			d, err := time.Parse("2006-01-02", str)
			if err != nil {
				return types.NewErr("Invalid date formatted string %s: %v", str, err)
			}
			return types.Timestamp{Time: d}
		case "date-time":
			d, err := parseOpenAPIDateTime(str)
			if err != nil {
				return types.NewErr("Invalid date-time formatted string %s: %v", str, err)
			}
			return types.Timestamp{Time: d}
		case "byte":
			enc := base64.URLEncoding
			buf := make([]byte, enc.DecodedLen(len(str)))
			n, err := enc.Decode(buf, []byte(str))
			if err != nil {
				return types.NewErr("Invalid byte formatted string %s: %v", str, err)
			}
			return types.Bytes(buf[:n])
		}
		return types.String(str)
	case "number":
		switch x := v.(type) {
		case int64:
			return types.Double(x)
		case int:
			return types.Double(x)
		case int32:
			return types.Double(x)
		case float32:
			return types.Double(x)
		case float64:
			return types.Double(x)
		}
		return types.NewErr("invalid data, expected float, got %T", v)
	case "integer":
		switch x := v.(type) {
		case int64:
			return types.Int(x)
		case int:
			return types.Int(x)
		case int32:
			return types.Int(x)
		}
		return types.NewErr("invalid data, expected int, got %T", v)
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return types.NewErr("invalid data, expected bool, got %T", v)
		}
		return types.Bool(b)
	}
	if s.XPreserveUnknownFields {
		return &unknownPreserved{u: v}
	}
	return types.NewErr("invalid type, expected object, array, number, integer, boolean or string, or no type with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got %s", s.Type)
}

var dateTimeLayouts = []string{"2006-01-02T15:04:05.000000Z07:00", "2006-01-02T15:04:05.000Z07:00", time.RFC3339, time.RFC3339Nano, "2006-01-02T15:04:05"}

// parseOpenAPIDateTime is kube-openapi's strfmt.ParseDateTime.
func parseOpenAPIDateTime(s string) (time.Time, error) {
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	var last error
	for _, layout := range dateTimeLayouts {
		t, err := time.Parse(layout, s)
		if err == nil {
			return t, nil
		}
		last = err
	}
	return time.Time{}, last
}

// unknownPreserved is a value under x-kubernetes-preserve-unknown-fields without a type.
type unknownPreserved struct{ u any }

func (t *unknownPreserved) ConvertToNative(refType reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion to '%s' not supported for values preserved by x-kubernetes-preserve-unknown-fields", refType)
}

func (t *unknownPreserved) ConvertToType(typeValue ref.Type) ref.Val {
	return types.NewErr("type conversion to '%s' not supported for values preserved by x-kubernetes-preserve-unknown-fields", typeValue.TypeName())
}

func (t *unknownPreserved) Equal(other ref.Val) ref.Val {
	return types.Bool(semanticDeepEqual(t.u, other.Value()))
}

func (t *unknownPreserved) Type() ref.Type { return types.UnknownType }
func (t *unknownPreserved) Value() any     { return t.u }

// semanticDeepEqual is equality.Semantic.DeepEqual over the object model (no Quantity etc.
// inside JSON values, so plain deep equality with nil and empty collections distinct).
func semanticDeepEqual(a, b any) bool { return reflect.DeepEqual(a, b) }

func escapeKeyProps(idents []string) []string {
	out := make([]string, len(idents))
	for i, p := range idents {
		if e, ok := Escape(p); ok {
			out[i] = e
		} else {
			out[i] = p
		}
	}
	return out
}

// listVal is an atomic (or untyped) list.
type listVal struct {
	elements []any
	items    *schema.Structural
}

func (t *listVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if typeDesc.Kind() == reflect.Slice {
		if t.items.Type == "string" {
			var result []string
			for _, e := range t.elements {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("expected all elements to be of type string, but got %T", e)
				}
				result = append(result, s)
			}
			return result, nil
		}
		return t.elements, nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", t.Type(), typeDesc)
}

func (t *listVal) ConvertToType(typeValue ref.Type) ref.Val {
	switch typeValue {
	case types.ListType:
		return t
	case types.TypeType:
		return types.ListType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", t.Type(), typeValue.TypeName())
}

func (t *listVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	sz := types.Int(len(t.elements))
	if sz != o.Size() {
		return types.False
	}
	for i := types.Int(0); i < sz; i++ {
		if eq := t.Get(i).Equal(o.Get(i)); eq != types.True {
			return eq
		}
	}
	return types.True
}

func (t *listVal) Type() ref.Type { return types.ListType }
func (t *listVal) Value() any     { return t.elements }

func (t *listVal) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	osz, _ := o.Size().(types.Int)
	elements := make([]ref.Val, 0, len(t.elements)+int(osz))
	for i := range t.elements {
		elements = append(elements, t.Get(types.Int(i)))
	}
	for it := o.Iterator(); it.HasNext() == types.True; {
		elements = append(elements, it.Next())
	}
	return types.NewRefValList(types.DefaultTypeAdapter, elements)
}

func (t *listVal) Contains(val ref.Val) ref.Val {
	if types.IsUnknownOrError(val) {
		return val
	}
	var err ref.Val
	for i := range t.elements {
		cmp := ValueOf(t.elements[i], t.items).Equal(val)
		b, ok := cmp.(types.Bool)
		if !ok && err == nil {
			err = types.MaybeNoSuchOverloadErr(cmp)
		}
		if b == types.True {
			return types.True
		}
	}
	if err != nil {
		return err
	}
	return types.False
}

func (t *listVal) Get(idx ref.Val) ref.Val {
	iv, isInt := idx.(types.Int)
	if !isInt {
		return types.ValOrErr(idx, "unsupported index: %v", idx)
	}
	i := int(iv)
	if i < 0 || i >= len(t.elements) {
		return types.NewErr("index out of bounds: %v", idx)
	}
	return ValueOf(t.elements[i], t.items)
}

func (t *listVal) Iterator() traits.Iterator {
	items := make([]ref.Val, len(t.elements))
	for i, e := range t.elements {
		items[i] = ValueOf(e, t.items)
	}
	return &sliceIterator{items: items}
}

func (t *listVal) Size() ref.Val { return types.Int(len(t.elements)) }

type sliceIterator struct {
	items []ref.Val
	idx   int
}

func (it *sliceIterator) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion on iterators not supported")
}
func (it *sliceIterator) ConvertToType(ref.Type) ref.Val { return types.NewErr("no such overload") }
func (it *sliceIterator) Equal(ref.Val) ref.Val          { return types.NewErr("no such overload") }
func (it *sliceIterator) Type() ref.Type                 { return types.IteratorType }
func (it *sliceIterator) Value() any                     { return nil }
func (it *sliceIterator) HasNext() ref.Val               { return types.Bool(it.idx < len(it.items)) }
func (it *sliceIterator) Next() ref.Val {
	v := it.items[it.idx]
	it.idx++
	return v
}

// setListVal is an x-kubernetes-list-type=set list: equality ignores order, + is a union
// keeping the left order.
type setListVal struct {
	listVal
	once   sync.Once
	set    map[any]struct{}
	setErr ref.Val
}

func (t *setListVal) getSet() (map[any]struct{}, ref.Val) {
	t.once.Do(func() {
		t.set = make(map[any]struct{}, len(t.elements))
		for i := range t.elements {
			k, err := setElementKey(t.Get(types.Int(i)))
			if err != nil {
				t.set, t.setErr = nil, err
				return
			}
			t.set[k] = struct{}{}
		}
	})
	return t.set, t.setErr
}

func (t *setListVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if types.Int(len(t.elements)) != o.Size() {
		return types.False
	}
	set, err := t.getSet()
	if err != nil {
		return err
	}
	seen := make(map[any]struct{}, len(set))
	for it := o.Iterator(); it.HasNext() == types.True; {
		k, err := setElementKey(it.Next())
		if err != nil {
			return err
		}
		if _, ok := set[k]; !ok {
			return types.False
		}
		seen[k] = struct{}{}
	}
	return types.Bool(len(seen) == len(set))
}

func (t *setListVal) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	elements := make([]ref.Val, len(t.elements))
	for i := range t.elements {
		elements[i] = t.Get(types.Int(i))
	}
	return addToSetList(elements, o)
}

// mapListVal is an x-kubernetes-list-type=map list: equality by key ignores order, + replaces
// items with equal keys in place and appends new ones.
type mapListVal struct {
	listVal
	keys  []string
	once  sync.Once
	byKey map[any]any
}

func (t *mapListVal) getMap() map[any]any {
	t.once.Do(func() {
		t.byKey = make(map[any]any, len(t.elements))
		for _, e := range t.elements {
			t.byKey[t.toMapKey(e)] = e
		}
	})
	return t.byKey
}

func (t *mapListVal) toMapKey(element any) any {
	obj, ok := element.(map[string]any)
	if !ok {
		return types.NewErr("unexpected data format for element of array with x-kubernetes-list-type=map: %T", element)
	}
	switch len(t.keys) {
	case 1:
		return obj[t.keys[0]]
	case 2:
		return [2]any{obj[t.keys[0]], obj[t.keys[1]]}
	case 3:
		return [3]any{obj[t.keys[0]], obj[t.keys[1]], obj[t.keys[2]]}
	}
	key := make([]any, len(t.keys))
	for i, k := range t.keys {
		key[i] = obj[k]
	}
	return fmt.Sprintf("%#v", key)
}

func (t *mapListVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if types.Int(len(t.elements)) != o.Size() {
		return types.False
	}
	m := t.getMap()
	seen := make(map[any]struct{}, len(m))
	for it := o.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		k := t.toMapKey(v.Value())
		tv, ok := m[k]
		if !ok {
			return types.False
		}
		if eq := ValueOf(tv, t.items).Equal(v); eq != types.True {
			return eq
		}
		seen[k] = struct{}{}
	}
	return types.Bool(len(seen) == len(m))
}

func (t *mapListVal) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	elements := make([]ref.Val, len(t.elements))
	for i := range t.elements {
		elements[i] = t.Get(types.Int(i))
	}
	return addToMapList(elements, o, t.keys)
}

func setElementKey(e ref.Val) (any, ref.Val) {
	switch e.(type) {
	case traits.Lister, traits.Mapper:
		return nil, types.NewErr("listSet operations are only supported on lists of scalar values")
	}
	raw := e.Value()
	if raw != nil && !reflect.TypeOf(raw).Comparable() {
		return fmt.Sprintf("%#v", raw), nil
	}
	return raw, nil
}

func addToSetList(elements []ref.Val, other traits.Lister) ref.Val {
	set := make(map[any]struct{}, len(elements))
	for _, e := range elements {
		k, err := setElementKey(e)
		if err != nil {
			return err
		}
		set[k] = struct{}{}
	}
	for it := other.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		k, err := setElementKey(v)
		if err != nil {
			return err
		}
		if _, ok := set[k]; !ok {
			set[k] = struct{}{}
			elements = append(elements, v)
		}
	}
	return &refSetList{Lister: types.NewRefValList(types.DefaultTypeAdapter, elements)}
}

type refSetList struct{ traits.Lister }

func (l *refSetList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	sz, _ := l.Size().(types.Int)
	elements := make([]ref.Val, int(sz))
	for i := types.Int(0); i < sz; i++ {
		elements[i] = l.Get(i)
	}
	return addToSetList(elements, o)
}

func (l *refSetList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	sz, _ := l.Size().(types.Int)
	if sz != o.Size() {
		return types.False
	}
	set := make(map[any]struct{}, int(sz))
	for i := types.Int(0); i < sz; i++ {
		k, err := setElementKey(l.Get(i))
		if err != nil {
			return err
		}
		set[k] = struct{}{}
	}
	seen := make(map[any]struct{}, len(set))
	for it := o.Iterator(); it.HasNext() == types.True; {
		k, err := setElementKey(it.Next())
		if err != nil {
			return err
		}
		if _, ok := set[k]; !ok {
			return types.False
		}
		seen[k] = struct{}{}
	}
	return types.Bool(len(seen) == len(set))
}

func addToMapList(elements []ref.Val, other traits.Lister, keys []string) ref.Val {
	keyToIdx := make(map[any]int, len(elements))
	for i, e := range elements {
		keyToIdx[refValMapKey(e, keys)] = i
	}
	for it := other.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		k := refValMapKey(v, keys)
		if pos, ok := keyToIdx[k]; ok {
			elements[pos] = v
		} else {
			elements = append(elements, v)
		}
	}
	return &refMapList{Lister: types.NewRefValList(types.DefaultTypeAdapter, elements), keys: keys}
}

func refValMapKey(element ref.Val, keys []string) any {
	get := func(prop string) any {
		key := types.String(prop)
		var v ref.Val
		var found bool
		switch e := element.(type) {
		case traits.Mapper:
			v, found = e.Find(key)
		case traits.Indexer:
			if tester, ok := element.(traits.FieldTester); ok {
				found = tester.IsSet(key) == types.True
			}
			if found {
				v = e.Get(key)
			}
		}
		if !found || v == nil || types.IsUnknownOrError(v) {
			return nil
		}
		raw := v.Value()
		if raw != nil && !reflect.TypeOf(raw).Comparable() {
			return fmt.Sprintf("%#v", raw)
		}
		return raw
	}
	switch len(keys) {
	case 1:
		return get(keys[0])
	case 2:
		return [2]any{get(keys[0]), get(keys[1])}
	case 3:
		return [3]any{get(keys[0]), get(keys[1]), get(keys[2])}
	}
	key := make([]any, len(keys))
	for i, k := range keys {
		key[i] = get(k)
	}
	return fmt.Sprintf("%#v", key)
}

type refMapList struct {
	traits.Lister
	keys []string
}

func (l *refMapList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	sz, _ := l.Size().(types.Int)
	elements := make([]ref.Val, int(sz))
	for i := types.Int(0); i < sz; i++ {
		elements[i] = l.Get(i)
	}
	return addToMapList(elements, o, l.keys)
}

func (l *refMapList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	sz, _ := l.Size().(types.Int)
	if sz != o.Size() {
		return types.False
	}
	byKey := make(map[any]ref.Val, int(sz))
	for i := types.Int(0); i < sz; i++ {
		e := l.Get(i)
		byKey[refValMapKey(e, l.keys)] = e
	}
	seen := make(map[any]struct{}, len(byKey))
	for it := o.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		k := refValMapKey(v, l.keys)
		e, ok := byKey[k]
		if !ok {
			return types.False
		}
		if eq := e.Equal(v); eq != types.True {
			return eq
		}
		seen[k] = struct{}{}
	}
	return types.Bool(len(seen) == len(byKey))
}

// objectVal is an object (properties: escaped field names, null fields absent), a map
// (additionalProperties) or an object with neither (no accessible keys).
type objectVal struct {
	value      map[string]any
	schema     *schema.Structural
	isObject   bool
	additional *schema.Structural
}

func (t *objectVal) propSchema(key string) (*schema.Structural, bool) {
	if t.isObject {
		s, ok := t.schema.Properties[key]
		return s, ok
	}
	if t.additional != nil {
		return t.additional, true
	}
	return nil, false
}

func (t *objectVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if typeDesc.Kind() == reflect.Map {
		return t.value, nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", t.Type(), typeDesc)
}

func (t *objectVal) ConvertToType(typeValue ref.Type) ref.Val {
	switch typeValue {
	case types.MapType:
		return t
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", t.Type(), typeValue.TypeName())
}

func (t *objectVal) Equal(other ref.Val) ref.Val {
	o, isMap := other.(traits.Mapper)
	if !isMap {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if t.Size() != o.Size() {
		return types.False
	}
	// Keys in sorted order: the apiserver ranges over the Go map, so when two fields compare
	// differently (one unequal, one an error) its answer varies; writepath's is one of them,
	// always the same.
	for _, key := range sortedKeys(t.value) {
		value := t.value[key]
		if _, ok := t.propSchema(key); ok {
			v, found := t.Find(types.String(key))
			ov, oFound := o.Find(types.String(key))
			if found != oFound {
				return types.False
			}
			if !found {
				continue
			}
			if eq := v.Equal(ov); eq != types.True {
				return eq
			}
		} else {
			ou, ok := other.(*objectVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(other)
			}
			if ov, ok := ou.value[key]; ok && !semanticDeepEqual(value, ov) {
				return types.False
			}
		}
	}
	return types.True
}

func (t *objectVal) Type() ref.Type { return types.MapType }
func (t *objectVal) Value() any     { return t.value }

func (t *objectVal) Contains(key ref.Val) ref.Val {
	v, found := t.Find(key)
	if v != nil && types.IsUnknownOrError(v) {
		return v
	}
	return types.Bool(found)
}

func (t *objectVal) Get(key ref.Val) ref.Val {
	if v, found := t.Find(key); found {
		return v
	}
	return types.ValOrErr(key, "no such key: %v", key)
}

func (t *objectVal) Iterator() traits.Iterator {
	// Sorted: comprehensions stop early (all, exists), so the order decides the cost; the
	// apiserver's Go map order is random, writepath's is fixed.
	keys := make([]ref.Val, 0, len(t.value))
	for _, k := range sortedKeys(t.value) {
		if _, ok := t.propSchema(k); ok {
			mk := k
			if t.isObject {
				if e, ok := Escape(k); ok {
					mk = e
				}
			}
			keys = append(keys, types.String(mk))
		}
	}
	return &sliceIterator{items: keys}
}

func (t *objectVal) Size() ref.Val { return types.Int(len(t.value)) }

func (t *objectVal) Find(key ref.Val) (ref.Val, bool) {
	ks, ok := key.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(key), true
	}
	k := string(ks)
	if t.isObject {
		if k, ok = Unescape(k); !ok {
			return nil, false
		}
	}
	if v, ok := t.value[k]; ok {
		if t.isObject && v == nil {
			return nil, false
		}
		if ps, ok := t.propSchema(k); ok {
			return ValueOf(v, ps), true
		}
	}
	return nil, false
}
