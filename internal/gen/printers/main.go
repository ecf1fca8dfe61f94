// Command printers derives the Table column definitions of kube-apiserver 1.37's built-in
// printers from the reference source: k8s.io/kubernetes v1.37.2 pkg/printers/internalversion's
// AddHandlers, read as Go syntax (never compiled or imported), with each description that the
// reference takes from a type's SwaggerDoc resolved from k8s.io/api v0.37.2's
// types_swagger_doc_generated.go. It writes cluster/printercolumns.json: for each printed kind
// (group and kind of the printer's internal type), its columns in the order the apiserver lists
// them (name, type, format, description, priority).
//
// The sources are read from the module cache (`go mod download -json` finds them). Run it with
//
//	go generate ./cluster/
//
// or `cd internal/gen && go run ./printers -out ../../cluster`. With -verify it writes nothing
// and fails when the committed file differs.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/writepath/writepath/internal/gen/genio"
)

const (
	outFile           = "printercolumns.json"
	kubernetesModule  = "k8s.io/kubernetes@v1.37.2"
	apiModule         = "k8s.io/api@v0.37.2"
	apimachineryModul = "k8s.io/apimachinery@v0.37.2"
	printersFile      = "pkg/printers/internalversion/printers.go"
)

// groups maps the internal API packages the printers take to their API group.
var groups = map[string]string{
	"k8s.io/kubernetes/pkg/apis/core":                  "",
	"k8s.io/kubernetes/pkg/apis/apps":                  "apps",
	"k8s.io/kubernetes/pkg/apis/batch":                 "batch",
	"k8s.io/kubernetes/pkg/apis/autoscaling":           "autoscaling",
	"k8s.io/kubernetes/pkg/apis/policy":                "policy",
	"k8s.io/kubernetes/pkg/apis/rbac":                  "rbac.authorization.k8s.io",
	"k8s.io/kubernetes/pkg/apis/networking":            "networking.k8s.io",
	"k8s.io/kubernetes/pkg/apis/storage":               "storage.k8s.io",
	"k8s.io/kubernetes/pkg/apis/certificates":          "certificates.k8s.io",
	"k8s.io/kubernetes/pkg/apis/coordination":          "coordination.k8s.io",
	"k8s.io/kubernetes/pkg/apis/discovery":             "discovery.k8s.io",
	"k8s.io/kubernetes/pkg/apis/flowcontrol":           "flowcontrol.apiserver.k8s.io",
	"k8s.io/kubernetes/pkg/apis/scheduling":            "scheduling.k8s.io",
	"k8s.io/kubernetes/pkg/apis/node":                  "node.k8s.io",
	"k8s.io/kubernetes/pkg/apis/admissionregistration": "admissionregistration.k8s.io",
	"k8s.io/kubernetes/pkg/apis/apiserverinternal":     "internal.apiserver.k8s.io",
	"k8s.io/kubernetes/pkg/apis/resource":              "resource.k8s.io",
	"k8s.io/kubernetes/pkg/apis/storagemigration":      "storagemigration.k8s.io",
	"k8s.io/kubernetes/pkg/apis/lifecycle":             "lifecycle.k8s.io",
}

// Column is one column definition (metav1.TableColumnDefinition's JSON).
type Column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int64  `json:"priority"`
}

// Kind is one printed kind.
type Kind struct {
	Group   string   `json:"group"`
	Kind    string   `json:"kind"`
	Columns []Column `json:"columns"`
}

// File is the generated file.
type File struct {
	Source string `json:"source"`
	// ObjectMeta holds the ObjectMeta descriptions of the name and creationTimestamp fields,
	// which the default table and custom resources' tables use.
	ObjectMeta map[string]string `json:"objectMeta"`
	Kinds      []Kind            `json:"kinds"`
}

func main() {
	out := flag.String("out", "../../cluster", "directory printercolumns.json is written to")
	verify := flag.Bool("verify", false, "do not write; fail if the file in -out differs from what would be generated")
	flag.Parse()
	if err := run(*out, *verify, true); err != nil {
		fmt.Fprintln(os.Stderr, "printers:", err)
		os.Exit(1)
	}
}

// run generates (or, with verify, checks) the file; download lets it fetch the reference
// modules that are not in the module cache.
func run(out string, verify, download bool) error {
	dirs := map[string]string{}
	for _, m := range []string{kubernetesModule, apiModule, apimachineryModul} {
		d, err := moduleDir(m, download)
		if err != nil {
			return err
		}
		dirs[m] = d
	}
	f, err := Generate(dirs[kubernetesModule], dirs[apiModule], dirs[apimachineryModul])
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	err = genio.Write(filepath.Join(out, outFile), append(data, '\n'), verify)
	if errors.Is(err, genio.ErrStale) {
		return fmt.Errorf("%w: run `go generate ./cluster/` and commit it", err)
	}
	return err
}

// errNoSource is returned when a reference module is not in the module cache and cannot be
// downloaded.
var errNoSource = errors.New("reference source not available")

// moduleDir is the module cache directory of module@version, downloaded when asked.
func moduleDir(mv string, download bool) (string, error) {
	if cache, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
		d := filepath.Join(strings.TrimSpace(string(cache)), mv)
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d, nil
		}
	}
	if !download {
		return "", fmt.Errorf("%w: %s is not in the module cache", errNoSource, mv)
	}
	b, err := exec.Command("go", "mod", "download", "-json", mv).Output()
	if err != nil {
		return "", fmt.Errorf("%w: go mod download %s: %v", errNoSource, mv, err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(b, &info); err != nil || info.Dir == "" {
		return "", fmt.Errorf("%w: go mod download %s: no Dir", errNoSource, mv)
	}
	return info.Dir, nil
}

// Generate reads the reference printers and swagger docs from the module directories.
func Generate(kubernetesDir, apiDir, apimachineryDir string) (*File, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filepath.Join(kubernetesDir, printersFile), nil, 0)
	if err != nil {
		return nil, err
	}
	imports := map[string]string{} // alias -> import path
	for _, im := range file.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		alias := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			alias = im.Name.Name
		}
		imports[alias] = p
	}
	docs := &swaggerDocs{fset: fset, apiDir: apiDir, apimachineryDir: apimachineryDir, maps: map[string]map[string]string{}, structs: map[string]map[string]string{}}
	funcs := map[string]*ast.FuncDecl{}
	var addHandlers *ast.FuncDecl
	for _, d := range file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
			funcs[fd.Name.Name] = fd
			if fd.Name.Name == "AddHandlers" {
				addHandlers = fd
			}
		}
	}
	if addHandlers == nil {
		return nil, errors.New("no AddHandlers in " + printersFile)
	}
	defs := map[string][]Column{}
	seen := map[string]bool{}
	out := &File{Source: kubernetesModule + " " + printersFile + " AddHandlers; descriptions from " + apiModule + " and " + apimachineryModul + " SwaggerDoc; go generate ./cluster/"}
	for _, st := range addHandlers.Body.List {
		switch s := st.(type) {
		case *ast.AssignStmt:
			if len(s.Lhs) != 1 || len(s.Rhs) != 1 {
				continue
			}
			if call, ok := s.Rhs[0].(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "TableHandler" {
					if err := handler(call, defs, funcs, imports, seen, out); err != nil {
						return nil, err
					}
					continue
				}
			}
			name, ok := s.Lhs[0].(*ast.Ident)
			if !ok {
				continue
			}
			switch rhs := s.Rhs[0].(type) {
			case *ast.CompositeLit:
				cols, err := columns(rhs, imports, docs)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name.Name, err)
				}
				defs[name.Name] = cols
			case *ast.CallExpr: // x = append(x, []metav1.TableColumnDefinition{...}...)
				if fn, ok := rhs.Fun.(*ast.Ident); !ok || fn.Name != "append" || len(rhs.Args) != 2 {
					return nil, fmt.Errorf("%s: unexpected assignment", name.Name)
				}
				lit, ok := rhs.Args[1].(*ast.CompositeLit)
				if !ok {
					return nil, fmt.Errorf("%s: unexpected append", name.Name)
				}
				cols, err := columns(lit, imports, docs)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name.Name, err)
				}
				defs[name.Name] = append(defs[name.Name], cols...)
			}
		case *ast.ExprStmt:
			if call, ok := s.X.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "TableHandler" {
					if err := handler(call, defs, funcs, imports, seen, out); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	metaDir, err := docs.pkgDir("k8s.io/apimachinery/pkg/apis/meta/v1")
	if err != nil {
		return nil, err
	}
	if err := docs.parse(metaDir); err != nil {
		return nil, err
	}
	om := docs.maps[metaDir+".ObjectMeta"]
	out.ObjectMeta = map[string]string{"name": om["name"], "creationTimestamp": om["creationTimestamp"]}
	sort.Slice(out.Kinds, func(i, j int) bool {
		if out.Kinds[i].Group != out.Kinds[j].Group {
			return out.Kinds[i].Group < out.Kinds[j].Group
		}
		return out.Kinds[i].Kind < out.Kinds[j].Kind
	})
	return out, nil
}

// handler records h.TableHandler(defs, printFn) for the kind printFn prints (list printers are
// skipped: they print the same kind).
func handler(call *ast.CallExpr, defs map[string][]Column, funcs map[string]*ast.FuncDecl, imports map[string]string, seen map[string]bool, out *File) error {
	if len(call.Args) != 2 {
		return errors.New("TableHandler with other than two arguments")
	}
	dn, ok1 := call.Args[0].(*ast.Ident)
	fnName, ok2 := call.Args[1].(*ast.Ident)
	if !ok1 || !ok2 {
		return errors.New("TableHandler arguments are not names")
	}
	cols, ok := defs[dn.Name]
	if !ok {
		return fmt.Errorf("TableHandler(%s): no such column definitions", dn.Name)
	}
	fd := funcs[fnName.Name]
	if fd == nil || len(fd.Type.Params.List) == 0 {
		return fmt.Errorf("TableHandler(%s, %s): no such printer", dn.Name, fnName.Name)
	}
	star, ok := fd.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return fmt.Errorf("%s: first parameter is not a pointer", fnName.Name)
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok {
		return fmt.Errorf("%s: first parameter is not a qualified type", fnName.Name)
	}
	pkg := imports[sel.X.(*ast.Ident).Name]
	kind := sel.Sel.Name
	if pkg == "k8s.io/apimachinery/pkg/apis/meta/v1" {
		return nil // metav1.Status: not a resource
	}
	group, ok := groups[pkg]
	if !ok {
		return fmt.Errorf("%s: internal package %s has no group here", fnName.Name, pkg)
	}
	if strings.HasSuffix(kind, "List") {
		return nil
	}
	key := group + "/" + kind
	if seen[key] {
		return nil
	}
	seen[key] = true
	out.Kinds = append(out.Kinds, Kind{Group: group, Kind: kind, Columns: cols})
	return nil
}

func columns(lit *ast.CompositeLit, imports map[string]string, docs *swaggerDocs) ([]Column, error) {
	var out []Column
	for _, e := range lit.Elts {
		cl, ok := e.(*ast.CompositeLit)
		if !ok {
			return nil, errors.New("column is not a literal")
		}
		var c Column
		for _, f := range cl.Elts {
			kv, ok := f.(*ast.KeyValueExpr)
			if !ok {
				return nil, errors.New("column field without a key")
			}
			key := kv.Key.(*ast.Ident).Name
			switch key {
			case "Name", "Type", "Format":
				s, err := stringLit(kv.Value)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", key, err)
				}
				switch key {
				case "Name":
					c.Name = s
				case "Type":
					c.Type = s
				default:
					c.Format = s
				}
			case "Priority":
				bl, ok := kv.Value.(*ast.BasicLit)
				if !ok || bl.Kind != token.INT {
					return nil, errors.New("priority is not an integer literal")
				}
				n, err := strconv.ParseInt(bl.Value, 10, 32)
				if err != nil {
					return nil, err
				}
				c.Priority = n
			case "Description":
				d, err := docs.description(kv.Value, imports)
				if err != nil {
					return nil, fmt.Errorf("column %q: %w", c.Name, err)
				}
				c.Description = d
			default:
				return nil, fmt.Errorf("unknown column field %s", key)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

func stringLit(e ast.Expr) (string, error) {
	switch v := e.(type) {
	case *ast.BasicLit:
		if v.Kind == token.STRING {
			return strconv.Unquote(v.Value)
		}
	case *ast.BinaryExpr:
		if v.Op == token.ADD {
			a, err := stringLit(v.X)
			if err != nil {
				return "", err
			}
			b, err := stringLit(v.Y)
			return a + b, err
		}
	}
	return "", errors.New("not a string literal")
}

// swaggerDocs resolves T{}.SwaggerDoc()["field"] and T{}.F.SwaggerDoc()["field"] from the
// k8s.io/api and k8s.io/apimachinery sources.
type swaggerDocs struct {
	fset                    *token.FileSet
	apiDir, apimachineryDir string
	maps                    map[string]map[string]string // pkg dir + "." + type -> doc map
	structs                 map[string]map[string]string // pkg dir + "." + type -> field -> field type name
	parsed                  map[string]bool
}

func (d *swaggerDocs) description(e ast.Expr, imports map[string]string) (string, error) {
	if s, err := stringLit(e); err == nil {
		return s, nil
	}
	idx, ok := e.(*ast.IndexExpr)
	if !ok {
		return "", errors.New("description is neither a literal nor a SwaggerDoc lookup")
	}
	field, err := stringLit(idx.Index)
	if err != nil {
		return "", err
	}
	call, ok := idx.X.(*ast.CallExpr)
	if !ok {
		return "", errors.New("not a SwaggerDoc call")
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "SwaggerDoc" {
		return "", errors.New("not a SwaggerDoc call")
	}
	var through []string // field selections between the literal and SwaggerDoc
	x := sel.X
	for {
		s, ok := x.(*ast.SelectorExpr)
		if !ok {
			break
		}
		through = append([]string{s.Sel.Name}, through...)
		x = s.X
	}
	lit, ok := x.(*ast.CompositeLit)
	if !ok {
		return "", errors.New("SwaggerDoc receiver is not a composite literal")
	}
	ts, ok := lit.Type.(*ast.SelectorExpr)
	if !ok {
		return "", errors.New("SwaggerDoc receiver type is not qualified")
	}
	dir, err := d.pkgDir(imports[ts.X.(*ast.Ident).Name])
	if err != nil {
		return "", err
	}
	typ := ts.Sel.Name
	if err := d.parse(dir); err != nil {
		return "", err
	}
	for _, f := range through {
		ft, ok := d.structs[dir+"."+typ][f]
		if !ok {
			return "", fmt.Errorf("%s.%s has no field %s", dir, typ, f)
		}
		typ = ft
	}
	m, ok := d.maps[dir+"."+typ]
	if !ok {
		return "", fmt.Errorf("no swagger doc for %s.%s", dir, typ)
	}
	// A field the doc map lacks reads as "" in the reference too (LeaseCandidate's
	// BinaryVersion, from ObjectMeta's map).
	return m[field], nil
}

func (d *swaggerDocs) pkgDir(importPath string) (string, error) {
	switch {
	case strings.HasPrefix(importPath, "k8s.io/api/"):
		return filepath.Join(d.apiDir, strings.TrimPrefix(importPath, "k8s.io/api/")), nil
	case strings.HasPrefix(importPath, "k8s.io/apimachinery/"):
		return filepath.Join(d.apimachineryDir, strings.TrimPrefix(importPath, "k8s.io/apimachinery/")), nil
	}
	return "", fmt.Errorf("SwaggerDoc of a type outside k8s.io/api and k8s.io/apimachinery: %q", importPath)
}

// parse reads the package's swagger doc maps (map_T = map[string]string{...}) and its struct
// field types (for T{}.F.SwaggerDoc()).
func (d *swaggerDocs) parse(dir string) error {
	if d.parsed == nil {
		d.parsed = map[string]bool{}
	}
	if d.parsed[dir] {
		return nil
	}
	d.parsed[dir] = true
	for _, name := range []string{"types_swagger_doc_generated.go", "types.go"} {
		f, err := parser.ParseFile(d.fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					for i, n := range s.Names {
						if !strings.HasPrefix(n.Name, "map_") || i >= len(s.Values) {
							continue
						}
						lit, ok := s.Values[i].(*ast.CompositeLit)
						if !ok {
							continue
						}
						m := map[string]string{}
						for _, e := range lit.Elts {
							kv := e.(*ast.KeyValueExpr)
							k, err1 := stringLit(kv.Key)
							v, err2 := stringLit(kv.Value)
							if err1 != nil || err2 != nil {
								return fmt.Errorf("%s: %s: entry is not a string literal", dir, n.Name)
							}
							m[k] = v
						}
						d.maps[dir+"."+strings.TrimPrefix(n.Name, "map_")] = m
					}
				case *ast.TypeSpec:
					st, ok := s.Type.(*ast.StructType)
					if !ok {
						continue
					}
					fields := map[string]string{}
					for _, fl := range st.Fields.List {
						id, ok := fl.Type.(*ast.Ident)
						if !ok {
							continue
						}
						for _, fn := range fl.Names {
							fields[fn.Name] = id.Name
						}
					}
					d.structs[dir+"."+s.Name.Name] = fields
				}
			}
		}
	}
	return nil
}
