package managedfields

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Owner is one manager's claim on a field: the entry that holds it, without its field set.
type Owner struct {
	Manager     string
	Operation   Operation
	APIVersion  string
	Time        *time.Time
	Subresource string
}

// FieldOwners is a field path (structured-merge-diff notation, e.g.
// .spec.template.spec.containers[name="app"].image) with every manager that owns it.
type FieldOwners struct {
	Path   string
	Owners []Owner
}

func ownerOf(e Entry) Owner {
	return Owner{Manager: e.Manager, Operation: e.Operation, APIVersion: e.APIVersion, Time: e.Time, Subresource: e.Subresource}
}

// decodedEntry is an entry with its set decoded.
type decodedEntry struct {
	Entry
	set *fieldpath.Set
}

func decodeSets(obj map[string]any) ([]decodedEntry, error) {
	entries, _, err := FromObject(obj)
	if err != nil {
		return nil, err
	}
	out := make([]decodedEntry, 0, len(entries))
	for i, e := range entries {
		s, err := SetFromFieldsV1(e.FieldsV1)
		if err != nil {
			return nil, fmt.Errorf("metadata.managedFields[%d].fieldsV1: %w", i, err)
		}
		out = append(out, decodedEntry{Entry: e, set: s})
	}
	return out, nil
}

// Owners lists every field recorded in the object's managedFields with the managers that own
// it, in field-set order; the owners of a field are in managedFields order. Shared ownership (two
// appliers that set the same value) shows as several owners.
func Owners(obj map[string]any) ([]FieldOwners, error) {
	return ownersMatching(obj, "")
}

// OwnersOf lists the owners of path and of every field below it (".spec" covers
// ".spec.replicas"). path uses structured-merge-diff notation; the leading dot is optional.
func OwnersOf(obj map[string]any, path string) ([]FieldOwners, error) {
	return ownersMatching(obj, normalizePath(path))
}

func ownersMatching(obj map[string]any, prefix string) ([]FieldOwners, error) {
	return ownersMatchingCounted(obj, prefix, nil)
}

// ownersStats counts the work of ownersMatching for the scaling tests.
type ownersStats struct {
	paths    int // (path, entry) pairs collected
	compares int // path comparisons of the sort
}

// ownedPath is one path of one entry's set.
type ownedPath struct {
	path  fieldpath.Path
	entry int
}

// ownersMatchingCounted collects every entry's paths, sorts them in the order the union of the
// sets iterates them (then by entry), and groups equal paths: n log n in the paths owned.
// Building the union one entry at a time and asking every entry's set for every path of it
// costs the product of managers and fields (1,000 managers owning one key each: a million
// lookups).
func ownersMatchingCounted(obj map[string]any, prefix string, stats *ownersStats) ([]FieldOwners, error) {
	entries, err := decodeSets(obj)
	if err != nil {
		return nil, err
	}
	var owned []ownedPath
	for i, e := range entries {
		e.set.Iterate(func(p fieldpath.Path) {
			owned = append(owned, ownedPath{path: p.Copy(), entry: i})
		})
	}
	if stats != nil {
		stats.paths += len(owned)
	}
	slices.SortFunc(owned, func(a, b ownedPath) int {
		if stats != nil {
			stats.compares++
		}
		if c := compareIterationOrder(a.path, b.path); c != 0 {
			return c
		}
		return a.entry - b.entry
	})
	var out []FieldOwners
	for i := 0; i < len(owned); {
		j := i + 1
		for j < len(owned) && compareIterationOrder(owned[j].path, owned[i].path) == 0 {
			j++
		}
		if s := owned[i].path.String(); prefix == "" || underPath(s, prefix) {
			fo := FieldOwners{Path: s, Owners: make([]Owner, 0, j-i)}
			for _, o := range owned[i:j] {
				fo.Owners = append(fo.Owners, ownerOf(entries[o.entry].Entry))
			}
			out = append(out, fo)
		}
		i = j
	}
	return out, nil
}

// compareIterationOrder orders paths as fieldpath.Set.Iterate visits them: at each level of
// the set its members (paths ending there) in element order, then its children's paths,
// child by child in element order. A path comes before the paths below it.
func compareIterationOrder(a, b fieldpath.Path) int {
	c := 0
	for c < len(a) && c < len(b) && a[c].Compare(b[c]) == 0 {
		c++
	}
	switch {
	case c == len(a) && c == len(b):
		return 0
	case c == len(a):
		return -1
	case c == len(b):
		return 1
	}
	aMember, bMember := len(a) == c+1, len(b) == c+1
	switch {
	case aMember && !bMember:
		return -1
	case bMember && !aMember:
		return 1
	}
	return a[c].Compare(b[c])
}

// FieldsOf lists the fields owned by every entry of the named manager (an applier and an updater
// of the same name are both included), in entry order then field-set order.
func FieldsOf(obj map[string]any, manager string) ([]string, error) {
	entries, err := decodeSets(obj)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Manager != manager {
			continue
		}
		e.set.Iterate(func(p fieldpath.Path) { out = append(out, p.String()) })
	}
	return out, nil
}

// WriteTable prints the object's managedFields as a table with the columns MANAGER OPERATION
// APIVERSION TIME SUBRESOURCE FIELDS (FIELDS lists the leaf fields, comma-separated). With a
// non-empty path only the managers owning that path or something below it are printed, with
// only those fields.
func WriteTable(w io.Writer, obj map[string]any, path string) error {
	return writeTable(w, obj, path, false)
}

// WriteWideTable is WriteTable with one more column, SHARED WITH: the other managers that own
// some of the fields the entry owns (shared ownership, as two appliers of the same value have;
// among the fields under path when path is not empty), "<none>" when none does.
func WriteWideTable(w io.Writer, obj map[string]any, path string) error {
	return writeTable(w, obj, path, true)
}

// ownerKey identifies an entry among an object's managedFields.
func ownerKey(o Owner) string {
	return o.Manager + "\x00" + string(o.Operation) + "\x00" + o.APIVersion + "\x00" + o.Subresource
}

func writeTable(w io.Writer, obj map[string]any, path string, wide bool) error {
	entries, err := decodeSets(obj)
	if err != nil {
		return err
	}
	prefix := ""
	if path != "" {
		prefix = normalizePath(path)
	}
	// shared[entry] are the managers sharing a field with it, in the order first met.
	shared := map[string][]string{}
	if wide {
		fields, err := ownersMatching(obj, prefix)
		if err != nil {
			return err
		}
		for _, f := range fields {
			for _, a := range f.Owners {
				for _, b := range f.Owners {
					if ka := ownerKey(a); ka != ownerKey(b) && !slices.Contains(shared[ka], b.Manager) {
						shared[ka] = append(shared[ka], b.Manager)
					}
				}
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "MANAGER\tOPERATION\tAPIVERSION\tTIME\tSUBRESOURCE\tFIELDS"
	if wide {
		header += "\tSHARED WITH"
	}
	fmt.Fprintln(tw, header)
	for _, e := range entries {
		var fields []string
		e.set.Leaves().Iterate(func(p fieldpath.Path) {
			s := p.String()
			if prefix == "" || underPath(s, prefix) {
				fields = append(fields, s)
			}
		})
		if prefix != "" && len(fields) == 0 {
			continue
		}
		t := "<none>"
		if e.Time != nil {
			t = e.Time.UTC().Format(time.RFC3339)
		}
		sub := e.Subresource
		if sub == "" {
			sub = "<none>"
		}
		f := strings.Join(fields, ",")
		if f == "" {
			f = "<none>"
		}
		if !wide {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Manager, e.Operation, e.APIVersion, t, sub, f)
			continue
		}
		with := strings.Join(shared[ownerKey(ownerOf(e.Entry))], ",")
		if with == "" {
			with = "<none>"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Manager, e.Operation, e.APIVersion, t, sub, f, with)
	}
	return tw.Flush()
}

func normalizePath(p string) string {
	if p != "" && p[0] != '.' && p[0] != '[' {
		return "." + p
	}
	return p
}

// underPath reports whether s is prefix or a path below it.
func underPath(s, prefix string) bool {
	if !strings.HasPrefix(s, prefix) {
		return false
	}
	if len(s) == len(prefix) {
		return true
	}
	c := s[len(prefix)]
	return c == '.' || c == '['
}
