package cluster

//go:generate go run -C ../internal/gen ./printers -out ../../cluster

import (
	_ "embed"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writepath/writepath/internal/jsonpath"
	"github.com/writepath/writepath/schema"
)

// The printers of kube-apiserver 1.37 (k8s.io/kubernetes pkg/printers/internalversion), written
// from their behaviour over the object as stored (defaults applied, as the reference prints
// the internal object). printercolumns.json holds every printed kind's column definitions,
// generated from the reference (internal/gen/printers); the cells of the kinds in rowFuncs are
// computed here. A printed kind without a row function here, and every other kind, gets the
// default table (Name, Created At), so its columns are the apiserver's default ones rather
// than its own: see doc.go for the list.

//go:embed printercolumns.json
var printerColumnsJSON []byte

type column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int64  `json:"priority"`
}

// printer is one kind's table: its columns and how a row is computed.
type printer struct {
	columns []column
	row     func(o object, now time.Time) (cells []any, conditions []any)
	// forList, when set, specialises the printer for a list's items (StorageClass marks the
	// effective default of a list only; FlowSchemas are listed by precedence).
	forList func(items []any) (*printer, []any)
	// nullRows: an empty list's rows are null (the default table appends to a nil slice).
	nullRows bool
	// alwaysHeaders: columnDefinitions even where the watch asks for none (kube-aggregator's
	// APIService table ignores NoHeaders).
	alwaysHeaders bool
}

var printerColumns = sync.OnceValues(func() (map[string][]column, map[string]string) {
	var f struct {
		ObjectMeta map[string]string `json:"objectMeta"`
		Kinds      []struct {
			Group   string   `json:"group"`
			Kind    string   `json:"kind"`
			Columns []column `json:"columns"`
		} `json:"kinds"`
	}
	if err := json.Unmarshal(printerColumnsJSON, &f); err != nil {
		panic("cluster: printercolumns.json: " + err.Error()) // embedded and tested
	}
	out := map[string][]column{}
	for _, k := range f.Kinds {
		out[k.Group+"/"+k.Kind] = k.Columns
	}
	return out, f.ObjectMeta
})

// builtinPrinter is the printer of a built-in kind, or nil when it has none here. Events of
// events.k8s.io are printed as core Events, as the apiserver stores and prints both as one
// internal type.
func builtinPrinter(group, kind string) *printer {
	cols, _ := printerColumns()
	key := group + "/" + kind
	switch key {
	case "apiextensions.k8s.io/CustomResourceDefinition":
		return crdDefinitionPrinter()
	case "apiregistration.k8s.io/APIService":
		return apiServicePrinter()
	}
	if key == "events.k8s.io/Event" {
		return &printer{columns: cols["/Event"], row: func(o object, now time.Time) ([]any, []any) {
			return rowEvent(eventsV1AsCore(o), now)
		}}
	}
	row, ok := rowFuncs[key]
	if !ok || cols[key] == nil {
		return nil
	}
	p := &printer{columns: cols[key], row: row}
	switch key {
	case "storage.k8s.io/StorageClass":
		p.forList = storageClassList
	case "flowcontrol.apiserver.k8s.io/FlowSchema":
		p.forList = flowSchemaList
	}
	return p
}

// crdDefinitionPrinter is apiextensions-apiserver's CustomResourceDefinition table: Name,
// Scope, the served versions sorted ("(storage)" marked), Created At, and wide Group, Kind,
// ShortNames, Established.
func crdDefinitionPrinter() *printer {
	_, om := printerColumns()
	return &printer{
		columns: []column{
			{Name: "Name", Type: "string", Format: "name", Description: om["name"]},
			{Name: "Scope", Type: "string", Description: "Cluster/Namespaced"},
			{Name: "Versions", Type: "string", Description: "Served versions"},
			{Name: "Created At", Type: "date", Description: om["creationTimestamp"]},
			{Name: "Group", Type: "string", Priority: 1, Description: "API group"},
			{Name: "Kind", Type: "string", Priority: 1, Description: "CustomResource kind"},
			{Name: "ShortNames", Type: "string", Priority: 1, Description: "Short names"},
			{Name: "Established", Type: "boolean", Priority: 1, Description: "Established status"},
		},
		row: func(o object, _ time.Time) ([]any, []any) {
			var versions []string
			for _, v := range objects(o.list("spec", "versions")) {
				if v.get("served") == true {
					label := v.str("name")
					if v.get("storage") == true {
						label += "(storage)"
					}
					versions = append(versions, label)
				}
			}
			sortStrings(versions)
			established := false
			for _, c := range objects(o.list("status", "conditions")) {
				if c.str("type") == "Established" && c.str("status") == "True" {
					established = true
				}
			}
			return []any{o.name(), o.str("spec", "scope"), strings.Join(versions, ","), formatRFC3339(o.str("metadata", "creationTimestamp")),
				o.str("spec", "group"), o.str("spec", "names", "kind"), strings.Join(stringsOf(o.list("spec", "names", "shortNames")), ","), established}, nil
		},
		nullRows: true,
	}
}

// apiServicePrinter is kube-aggregator's APIService table: Name, Service (namespace/name or
// Local), Available (the condition's status, with its reason when not True), Age.
func apiServicePrinter() *printer {
	_, om := printerColumns()
	return &printer{
		columns: []column{
			{Name: "Name", Type: "string", Format: "name", Description: om["name"]},
			{Name: "Service", Type: "string", Description: "The reference to the service that hosts this API endpoint."},
			{Name: "Available", Type: "string", Description: "Whether this service is available."},
			{Name: "Age", Type: "string", Description: om["creationTimestamp"]},
		},
		row: func(o object, now time.Time) ([]any, []any) {
			service := "Local"
			if svc := o.obj("spec", "service"); svc != nil {
				service = svc.str("namespace") + "/" + svc.str("name")
			}
			st := "Unknown"
			for _, c := range objects(o.list("status", "conditions")) {
				if c.str("type") != "Available" {
					continue
				}
				switch {
				case c.str("status") == "True":
					st = "True"
				case c.str("reason") != "":
					st = c.str("status") + " (" + c.str("reason") + ")"
				default:
					st = c.str("status")
				}
				break
			}
			return []any{o.name(), service, st, o.age(now)}, nil
		},
		alwaysHeaders: true,
	}
}

// defaultPrinter is the default table convertor's: Name and Created At (RFC 3339, UTC).
func defaultPrinter() *printer {
	_, om := printerColumns()
	return &printer{
		columns: []column{
			{Name: "Name", Type: "string", Format: "name", Description: om["name"]},
			{Name: "Created At", Type: "date", Description: om["creationTimestamp"]},
		},
		row: func(o object, _ time.Time) ([]any, []any) {
			return []any{o.name(), formatRFC3339(o.str("metadata", "creationTimestamp"))}, nil
		},
		nullRows: true,
	}
}

// crdPrinter is a custom resource version's table (apiextensions tableconvertor): Name, then
// each additionalPrinterColumn read by its JSONPath, or Age when there are none.
func crdPrinter(cols []schema.PrinterColumn) *printer {
	_, om := printerColumns()
	if len(cols) == 0 {
		cols = []schema.PrinterColumn{{Name: "Age", Type: "date", Description: om["creationTimestamp"], JSONPath: ".metadata.creationTimestamp"}}
	}
	p := &printer{columns: []column{{Name: "Name", Type: "string", Format: "name", Description: om["name"]}}}
	var paths []*jsonpath.Template
	for _, c := range cols {
		t, err := jsonpath.Parse("{" + c.JSONPath + "}")
		if err != nil {
			// An unparsable column makes the reference fall back to the columns parsed so far.
			break
		}
		desc := c.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + c.JSONPath
		}
		paths = append(paths, t)
		p.columns = append(p.columns, column{Name: c.Name, Type: c.Type, Format: c.Format, Description: desc, Priority: int64(c.Priority)})
	}
	types := make([]string, len(p.columns)-1)
	for i := range types {
		types[i] = p.columns[i+1].Type
	}
	p.row = func(o object, now time.Time) ([]any, []any) {
		cells := []any{o.name()}
		for i, t := range paths {
			v, ok, err := t.First(map[string]any(o), jsonpath.Options{AllowMissingKeys: true})
			if err != nil || !ok {
				cells = append(cells, nil)
				continue
			}
			if types[i] == "string" {
				s, err := jsonpath.Text(v)
				if err != nil {
					cells = append(cells, nil)
				} else {
					cells = append(cells, s)
				}
				continue
			}
			cells = append(cells, jsonCell(types[i], v, now))
		}
		return cells, nil
	}
	return p
}

// jsonCell is the apiextensions cellForJSONValue.
func jsonCell(typ string, v any, now time.Time) any {
	switch typ {
	case "integer":
		switch n := v.(type) {
		case int64:
			return n
		case float64:
			return int64(n)
		}
	case "number":
		switch n := v.(type) {
		case int64:
			return float64(n)
		case float64:
			return n
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "string":
		if s, ok := v.(string); ok {
			return s
		}
	case "date":
		if s, ok := v.(string); ok {
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return "<invalid>"
			}
			if t.IsZero() {
				return "<unknown>"
			}
			return humanDuration(now.Sub(t))
		}
	}
	return nil
}

// crdScalePrinter is the table of a custom resource's scale subresource: Name, then Desired
// and Available from the scale's spec and status replicas paths when set.
func crdScalePrinter(v *schema.Version) *printer {
	var cols []schema.PrinterColumn
	if sc := v.Subresources.Scale; sc != nil {
		if sc.SpecReplicasPath != "" {
			cols = append(cols, schema.PrinterColumn{Name: "Desired", Type: "integer", Description: "Number of desired replicas", JSONPath: ".spec.replicas"})
		}
		if sc.StatusReplicasPath != "" {
			cols = append(cols, schema.PrinterColumn{Name: "Available", Type: "integer", Description: "Number of actual replicas", JSONPath: ".status.replicas"})
		}
	}
	cols = append(cols, schema.PrinterColumn{Name: "Age", Type: "date", Description: printerMeta("creationTimestamp"), JSONPath: ".metadata.creationTimestamp"})
	return crdPrinter(cols)
}

func printerMeta(field string) string {
	_, om := printerColumns()
	return om[field]
}

// object reads fields of an object of the object model.
type object map[string]any

func (o object) get(path ...string) any {
	var cur any = map[string]any(o)
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

func (o object) str(path ...string) string {
	s, _ := o.get(path...).(string)
	return s
}

func (o object) num(path ...string) int64 {
	switch n := o.get(path...).(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}

func (o object) list(path ...string) []any {
	l, _ := o.get(path...).([]any)
	return l
}

func (o object) obj(path ...string) object {
	m, _ := o.get(path...).(map[string]any)
	return object(m)
}

func (o object) has(path ...string) bool { return o.get(path...) != nil }

func (o object) name() string { return o.str("metadata", "name") }

func (o object) age(now time.Time) string { return since(o.str("metadata", "creationTimestamp"), now) }

func (o object) deleting() bool { return o.has("metadata", "deletionTimestamp") }

// objects is l's maps.
func objects(l []any) []object {
	out := make([]object, 0, len(l))
	for _, v := range l {
		m, _ := v.(map[string]any)
		out = append(out, object(m))
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// orNone is s, or "<none>" when empty.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// formatLabels is labels.FormatLabels: k=v sorted by key, "<none>" for none.
func formatLabels(m object) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v, _ := m[k].(string)
		parts = append(parts, k+"="+v)
	}
	return orNone(strings.Join(parts, ","))
}
