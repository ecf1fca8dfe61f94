package apply

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/writepath/writepath/managedfields"
)

// Report explains the conflicts of an apply beyond what the apiserver says: for each field, who
// owns it (operation, apiVersion, time, subresource), the live value, the requested value, and
// what --force-conflicts would take from whom.
type Report struct {
	Manager string
	Fields  []ReportField
}

// ReportField is one conflicting field.
type ReportField struct {
	Path string
	// Owners are the managers the apply conflicts with on this field; forcing removes the field
	// from each of their sets and gives it to the applier.
	Owners []Conflict
	// Live and Requested are the values at Path (JSON), "<absent>" when there is none.
	Live, Requested string
}

// WouldConflict reports the conflicts Apply would return for req without force (nil when it
// would succeed). Other errors of Apply are returned as they are.
//
// It answers without building the merged object where structured-merge-diff allows: when the
// object exists with managedFields, the manager is not kubectl (whose last-applied layer may
// forgive conflicts), and every other manager is recorded at the endpoint's version, the fields
// Apply's merge would add or change are exactly those the configuration adds to the live object
// or sets to another value (one comparison of the live object with the configuration, reset
// fields removed); the conflicts are the other managers' fields among them, so fields shared
// with an equal value never conflict. Anything else, and any error, goes through Apply.
func WouldConflict(req Request) ([]Conflict, error) {
	req.Force = false
	req.LibraryOnly = true
	if conflicts, ok := quickConflicts(req); ok {
		return conflicts, nil
	}
	return fullConflicts(req)
}

// fullConflicts is WouldConflict through the whole Apply.
func fullConflicts(req Request) ([]Conflict, error) {
	_, err := Apply(req)
	var ce *ConflictError
	if errors.As(err, &ce) {
		return ce.Conflicts, nil
	}
	return nil, err
}

// quickConflicts computes the conflicts of an apply (req.Force false) from a comparison of the
// live object with the configuration; ok is false when that shortcut does not apply or when
// anything fails (Apply then gives the exact answer).
func quickConflicts(req Request) ([]Conflict, bool) {
	if req.Live == nil || req.Manager == "kubectl" || len(validateApplyManager(req.Manager)) > 0 {
		return nil, false
	}
	gvk := req.gvk()
	if gvkOf(req.Config) != gvk || managedfields.Lenient(req.Config) != nil {
		return nil, false
	}
	managed, err := managedfields.DecodeObject(req.Live)
	if err != nil || len(managed.Fields) == 0 {
		return nil, false
	}
	e := newEngine(gvk, req.Subresource, req.Now, req.types(), req.Convert, req.ResetFields, req.MaxUpdateManagers)
	if av, _ := req.Live["apiVersion"].(string); av != string(e.gv) {
		return nil, false
	}
	id := e.identifier(req.Manager, managedfields.OperationApply)
	for m, vs := range managed.Fields {
		if m != id && vs.APIVersion() != e.gv {
			return nil, false
		}
	}
	configTyped, err := e.configToTyped(req.Config)
	if err != nil {
		return nil, false
	}
	liveTyped, err := e.types.ObjectToTyped(withoutManagedFields(req.Live), typed.AllowDuplicates)
	if err != nil {
		return nil, false
	}
	cmp, err := liveTyped.Compare(configTyped)
	if err != nil {
		return nil, false
	}
	if f := req.ResetFields[e.gv]; f != nil {
		cmp = cmp.FilterFields(f)
	}
	changed := cmp.Modified.Union(cmp.Added)
	conflicts := fieldpath.ManagedFields{}
	for m, vs := range managed.Fields {
		if m == id {
			continue
		}
		if s := vs.Set().Intersection(changed); !s.Empty() {
			conflicts[m] = fieldpath.NewVersionedSet(s, vs.APIVersion(), false)
		}
	}
	if len(conflicts) == 0 {
		return nil, true
	}
	return newConflictError(merge.ConflictsFromManagers(conflicts), managed).Conflicts, true
}

// Explain builds the report of a conflict error returned by Apply(req).
func Explain(req Request, err *ConflictError) Report { return explain(req, err, nil) }

func explain(req Request, err *ConflictError, stats *finderStats) Report {
	rep := Report{Manager: req.Manager}
	values := valueFinder{stats: stats}
	byPath := map[string]int{}
	for _, c := range err.Conflicts {
		i, ok := byPath[c.Path]
		if !ok {
			i = len(rep.Fields)
			byPath[c.Path] = i
			rf := ReportField{Path: c.Path, Live: "<absent>", Requested: "<absent>"}
			if req.Live != nil {
				if v, ok := values.valueAt(req.Live, c.path); ok {
					rf.Live = jsonText(v)
				}
			}
			if v, ok := values.valueAt(req.Config, c.path); ok {
				rf.Requested = jsonText(v)
			}
			rep.Fields = append(rep.Fields, rf)
		}
		rep.Fields[i].Owners = append(rep.Fields[i].Owners, c)
	}
	sort.SliceStable(rep.Fields, func(i, j int) bool { return rep.Fields[i].Path < rep.Fields[j].Path })
	return rep
}

// WriteTo prints the report as a table (FIELD OWNER OPERATION APIVERSION TIME SUBRESOURCE LIVE
// REQUESTED) followed by what forcing would do.
func (r Report) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tOWNER\tOPERATION\tAPIVERSION\tTIME\tSUBRESOURCE\tLIVE\tREQUESTED")
	for _, f := range r.Fields {
		for _, o := range f.Owners {
			t := "<none>"
			if o.Owner.Time != nil {
				t = o.Owner.Time.UTC().Format(time.RFC3339)
			}
			sub := o.Owner.Subresource
			if sub == "" {
				sub = "<none>"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Path, o.Owner.Manager, o.Owner.Operation, o.Owner.APIVersion, t, sub, f.Live, f.Requested)
		}
	}
	tw.Flush()
	taken := map[string][]string{}
	var names []string
	for _, f := range r.Fields {
		for _, o := range f.Owners {
			if _, ok := taken[o.Owner.Manager]; !ok {
				names = append(names, o.Owner.Manager)
			}
			taken[o.Owner.Manager] = append(taken[o.Owner.Manager], f.Path)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "--force-conflicts would take %s from %q and give them to %q\n", strings.Join(taken[n], ", "), n, r.Manager)
	}
	k, err := io.WriteString(w, b.String())
	return int64(k), err
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// valueFinder finds values at SMD paths in objects of the object model. A keyed or set list is
// searched through an index built at its first search (a report of n conflicts in a list of n
// items scanned the list once per conflict).
type valueFinder struct {
	indexes map[listKey]map[string][]int
	stats   *finderStats
}

// finderStats counts a valueFinder's work for the scaling test.
type finderStats struct {
	indexed  int // list items put in an index
	compared int // items compared with a key or a value
}

// listKey names an index: the list (by its backing array and length) and the key fields'
// names (empty for a set's values).
type listKey struct {
	data  *any
	n     int
	names string
}

// valueAt finds the value at an SMD path in an object of the object model: the first item of a
// list that matches a key or a value, as a scan in list order finds it.
func (f *valueFinder) valueAt(obj any, p fieldpath.Path) (any, bool) {
	cur := obj
	for _, pe := range p {
		switch {
		case pe.FieldName != nil:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			cur, ok = m[*pe.FieldName]
			if !ok {
				return nil, false
			}
		case pe.Key != nil:
			l, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			i := f.find(l, *pe.Key, nil)
			if i < 0 {
				return nil, false
			}
			cur = l[i]
		case pe.Value != nil:
			l, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			i := f.find(l, nil, *pe.Value)
			if i < 0 {
				return nil, false
			}
			cur = l[i]
		case pe.Index != nil:
			l, ok := cur.([]any)
			if !ok || *pe.Index < 0 || *pe.Index >= len(l) {
				return nil, false
			}
			cur = l[*pe.Index]
		default:
			return nil, false
		}
	}
	return cur, true
}

// find returns the position of the first item of l matching key (a map whose fields of those
// names equal the key's values) or, with a nil key, equal to v; -1 when none does. Items are
// grouped by a bucket that equal values share (numbers by their float64 value, as value.Equals
// compares them), and only the bucket's items are compared, in list order.
func (f *valueFinder) find(l []any, key value.FieldList, v value.Value) int {
	if len(l) == 0 {
		return -1
	}
	names := make([]string, len(key))
	for i, fl := range key {
		names[i] = fl.Name
	}
	lk := listKey{data: &l[0], n: len(l), names: strings.Join(names, "\x00")}
	if key != nil {
		lk.names = "k\x00" + lk.names
	}
	if f.indexes == nil {
		f.indexes = map[listKey]map[string][]int{}
	}
	idx, ok := f.indexes[lk]
	if !ok {
		idx = map[string][]int{}
		for i, item := range l {
			if b, ok := itemBucket(item, key); ok {
				idx[b] = append(idx[b], i)
			}
		}
		f.indexes[lk] = idx
		if f.stats != nil {
			f.stats.indexed += len(l)
		}
	}
	var want string
	if key != nil {
		var b strings.Builder
		for _, fl := range key {
			writeBucket(&b, fl.Value)
		}
		want = b.String()
	} else {
		var b strings.Builder
		writeBucket(&b, v)
		want = b.String()
	}
	for _, i := range idx[want] {
		if f.stats != nil {
			f.stats.compared++
		}
		if matches(l[i], key, v) {
			return i
		}
	}
	return -1
}

// matches is the scan's test of one item.
func matches(item any, key value.FieldList, v value.Value) bool {
	if key == nil {
		return value.Equals(value.NewValueInterface(item), v)
	}
	m, ok := item.(map[string]any)
	if !ok {
		return false
	}
	for _, f := range key {
		x, ok := m[f.Name]
		if !ok || !value.Equals(value.NewValueInterface(x), f.Value) {
			return false
		}
	}
	return true
}

// itemBucket is the bucket of an item: of its values of the key's fields, or of the item itself
// for a nil key; false when it cannot match (not a map, a key field missing).
func itemBucket(item any, key value.FieldList) (string, bool) {
	var b strings.Builder
	if key == nil {
		writeBucket(&b, value.NewValueInterface(item))
		return b.String(), true
	}
	m, ok := item.(map[string]any)
	if !ok {
		return "", false
	}
	for _, f := range key {
		x, ok := m[f.Name]
		if !ok {
			return "", false
		}
		writeBucket(&b, value.NewValueInterface(x))
	}
	return b.String(), true
}

// writeBucket writes a text that values equal under value.Equals share: numbers by their
// float64 value (value.Equals compares an int and a float that way; 0 and -0 alike), strings,
// booleans and null by themselves, lists and maps in one bucket.
func writeBucket(b *strings.Builder, v value.Value) {
	var t string
	switch {
	case v.IsFloat() || v.IsInt():
		x := 0.0
		if v.IsFloat() {
			x = v.AsFloat()
		} else {
			x = float64(v.AsInt())
		}
		if x == 0 {
			x = 0
		}
		t = "#" + strconv.FormatFloat(x, 'g', -1, 64)
	case v.IsString():
		t = "s" + v.AsString()
	case v.IsBool():
		t = "b" + strconv.FormatBool(v.AsBool())
	case v.IsNull():
		t = "n"
	default:
		t = "c"
	}
	b.WriteString(strconv.Itoa(len(t)))
	b.WriteByte(':')
	b.WriteString(t)
}
