package apply

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
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
	configTyped, err := e.types.ObjectToTyped(req.Config)
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
func Explain(req Request, err *ConflictError) Report {
	rep := Report{Manager: req.Manager}
	byPath := map[string]int{}
	for _, c := range err.Conflicts {
		i, ok := byPath[c.Path]
		if !ok {
			i = len(rep.Fields)
			byPath[c.Path] = i
			rf := ReportField{Path: c.Path, Live: "<absent>", Requested: "<absent>"}
			if req.Live != nil {
				if v, ok := valueAt(req.Live, c.path); ok {
					rf.Live = jsonText(v)
				}
			}
			if v, ok := valueAt(req.Config, c.path); ok {
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

// valueAt finds the value at an SMD path in an object of the object model.
func valueAt(obj any, p fieldpath.Path) (any, bool) {
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
			found := false
			for _, item := range l {
				m, ok := item.(map[string]any)
				if !ok {
					continue
				}
				match := true
				for _, f := range *pe.Key {
					v, ok := m[f.Name]
					if !ok || !value.Equals(value.NewValueInterface(v), f.Value) {
						match = false
						break
					}
				}
				if match {
					cur, found = item, true
					break
				}
			}
			if !found {
				return nil, false
			}
		case pe.Value != nil:
			l, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			found := false
			for _, item := range l {
				if value.Equals(value.NewValueInterface(item), *pe.Value) {
					cur, found = item, true
					break
				}
			}
			if !found {
				return nil, false
			}
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
