package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/template"

	"github.com/writepath/writepath/internal/jsonpath"
)

// templatePrinter is -o jsonpath, jsonpath-as-json, go-template and their -file forms, printing
// and failing as kubectl's printers (cli-runtime's JSONPathPrinter and GoTemplatePrinter) do.
type templatePrinter struct {
	format string
	raw    string
	jp     *jsonpath.Template
	gt     *template.Template
	opts   jsonpath.Options
}

func newTemplatePrinter(format, tmpl string, allowMissing bool) (*templatePrinter, error) {
	p := &templatePrinter{format: format, raw: tmpl, opts: jsonpath.Options{AllowMissingKeys: allowMissing}}
	if strings.HasSuffix(format, "file") {
		data, err := readTemplateFile(tmpl)
		if err != nil {
			return nil, usagef("error reading --template %s, %v", tmpl, err)
		}
		p.raw = string(data)
	}
	switch format {
	case "jsonpath", "jsonpath-file", "jsonpath-as-json":
		t, err := jsonpath.Parse(p.raw)
		if err != nil {
			return nil, usagef("error parsing jsonpath %s, %v", p.raw, err)
		}
		p.jp = t
		p.opts.JSONOutput = format == "jsonpath-as-json"
	default:
		t, err := template.New("output").Funcs(template.FuncMap{"exists": exists, "base64decode": base64decode}).Parse(p.raw)
		if err != nil {
			return nil, usagef("error parsing template %s, %v", p.raw, err)
		}
		if allowMissing {
			t.Option("missingkey=default")
		} else {
			t.Option("missingkey=error")
		}
		p.gt = t
	}
	return p, nil
}

// print writes v through the template. Nothing is written when a jsonpath template fails; a
// failing go template has written what it could, then kubectl's report of the failure.
func (p *templatePrinter) print(w io.Writer, v any) error {
	if p.jp != nil {
		var b bytes.Buffer
		if err := p.jp.Execute(&b, v, p.opts); err != nil {
			return fmt.Errorf("error executing jsonpath %q: Error executing template: %v. Printing more information for debugging the template:\n\ttemplate was:\n\t\t%v\n\tobject given to jsonpath engine was:\n\t\t%#v\n", p.raw, err, p.raw, v)
		}
		_, err := w.Write(b.Bytes())
		return err
	}
	if err := safeExecute(p.gt, w, v); err != nil {
		raw, _ := json.Marshal(v)
		fmt.Fprintf(w, "Error executing template: %v. Printing more information for debugging the template:\n", err)
		fmt.Fprintf(w, "\ttemplate was:\n\t\t%v\n", p.raw)
		fmt.Fprintf(w, "\traw data was:\n\t\t%v\n", string(raw))
		fmt.Fprintf(w, "\tobject given to template engine was:\n\t\t%+v\n\n", v)
		return fmt.Errorf("error executing template %q: %v", p.raw, err)
	}
	return nil
}

// safeExecute runs t, a panic in a template function reported as an error, as kubectl's
// GoTemplatePrinter.safeExecute does.
func safeExecute(t *template.Template, w io.Writer, v any) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("caught panic: %+v", x)
		}
	}()
	return t.Execute(w, v)
}

// readTemplateFile reads a -o ...-file template, bounded as a request body.
func readTemplateFile(path string) ([]byte, error) {
	return (&env{}).readFile(path)
}

// exists is kubectl's go-template function: whether item has the map keys and list indexes
// given, in turn.
func exists(item any, indices ...any) bool {
	v := item
	for _, i := range indices {
		switch x := v.(type) {
		case map[string]any:
			k, ok := i.(string)
			if !ok {
				return false
			}
			if v, ok = x[k]; !ok {
				return false
			}
		case []any:
			n, ok := toIndex(i)
			if !ok || n < 0 || n >= int64(len(x)) {
				return false
			}
			v = x[n]
		default:
			return false
		}
	}
	return true
}

func toIndex(i any) (int64, bool) {
	switch n := i.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// base64decode is kubectl's go-template function.
func base64decode(v string) (string, error) {
	data, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return "", fmt.Errorf("base64 decode failed: %v", err)
	}
	return string(data), nil
}
