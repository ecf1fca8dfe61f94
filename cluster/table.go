package cluster

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
	"github.com/writepath/writepath/status"
)

// Output transformations of resource requests (Accept's as=Table and as=PartialObjectMetadata
// in protobuf), as kube-apiserver's transformResponseObject and its watch encoder apply them:
//
//   - Table (meta.k8s.io/v1 or v1beta1, JSON or YAML): the answer of a get, list, create,
//     update, patch or delete (and each watch event's object) becomes a Table: the kind's
//     columns and one row per object (printers.go: the built-in printers; a custom resource's
//     additionalPrinterColumns, or Age when it has none; Name and Created At for the other
//     kinds), every column, wide ones included, as the apiserver always prints wide. Each row
//     carries the object as includeObject asks: Metadata (the default, a
//     PartialObjectMetadata), Object (the whole object) or None. In a watch, only the first
//     event's Table has columnDefinitions (the rest null), as the apiserver's watch encoder
//     sets NoHeaders after the first object. AGE cells are the time since creation on the
//     cluster's clock.
//   - PartialObjectMetadata(List) in protobuf (client-go's metadata client asks for it first):
//     registry answers it in JSON, transcoded to protobuf, for custom resources too.
//
// A Status (an error answer) is never transformed.

// withOutput serves r through next with the output its Accept header negotiates.
func (c *Cluster) withOutput(rw http.ResponseWriter, r *http.Request, next http.HandlerFunc) {
	target, ok := resourceTarget(r.URL.Path)
	if !ok {
		next(rw, r)
		return
	}
	kind, berr := schema.BuiltinForResource(target.Resource)
	custom := berr != nil
	watch := r.Method == http.MethodGet && isWatch(r.URL.Query())
	negotiated := negotiateOutput
	if watch {
		negotiated = negotiateWatch
	}
	o, ok := negotiated(r.Header.Get("Accept"), custom)
	r = r.Clone(r.Context())
	if !ok {
		if custom && !c.servesCustom(r.Context(), target) || !custom && !kind.ServedByDefault {
			r.Header.Set("Accept", unacceptable) // registry's 404
			next(rw, r)
			return
		}
		writeNotAcceptable(rw, r, target, custom, watch)
		return
	}
	r.Header.Set("Accept", o.accept())
	switch {
	case o.as == "Table":
		c.serveTable(rw, r, target, o, watch, next)
	case o.as != "" && o.mediaType == protobufType:
		if watch {
			w := &protobufWatchWriter{rw: rw}
			next(w, r)
			w.finish()
			return
		}
		w := &bufferedResponse{header: http.Header{}}
		next(w, r)
		w.transcode(rw)
	default:
		next(rw, r)
	}
}

// servesCustom reports whether a stored CRD serves the target's group, version and resource.
func (c *Cluster) servesCustom(ctx context.Context, target registry.Target) bool {
	res := target.Resource
	o, err := c.store.Get(ctx, Key{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: res.Resource + "." + res.Group})
	if err != nil {
		return false
	}
	crd, err := schema.FromCRD(o.Value)
	if err != nil {
		return false
	}
	v := crd.Version(res.Version)
	return v != nil && v.Served
}

// resourceTarget is the target of a request for a resource (not discovery).
func resourceTarget(path string) (registry.Target, bool) {
	if !strings.HasPrefix(path, "/api/") && !strings.HasPrefix(path, "/apis/") {
		return registry.Target{}, false
	}
	if p := strings.TrimSuffix(path, "/"); isGroupPath(p) {
		return registry.Target{}, false
	}
	t, _, err := registry.ParsePath(path)
	if err != nil || t.Resource.Resource == "" {
		return registry.Target{}, false
	}
	return t, true
}

// tableOptions is metav1.TableOptions as the query gives it.
type tableOptions struct {
	includeObject string // "", "Metadata", "Object", "None"
	noHeaders     bool
}

// parseTableOptions reads includeObject and checks it as ValidateTableOptions does.
func parseTableOptions(q map[string][]string) (tableOptions, *status.Error) {
	var o tableOptions
	if v := q["includeObject"]; len(v) > 0 {
		o.includeObject = v[0]
	}
	switch o.includeObject {
	case "", "Metadata", "Object", "None":
		return o, nil
	}
	err := field.Invalid(field.NewPath("includeObject"), o.includeObject, "must be 'Metadata', 'Object', 'None', or empty")
	return o, status.BadRequest("Unable to convert to Table as requested: " + err.Error())
}

// serveTable answers r (whose Accept asks registry for JSON) with Tables.
func (c *Cluster) serveTable(rw http.ResponseWriter, r *http.Request, target registry.Target, o output, watch bool, next http.HandlerFunc) {
	conv := &tableConverter{c: c, ctx: r.Context(), target: target, version: o.version}
	if watch {
		opts, se := parseTableOptions(r.URL.Query())
		if se != nil {
			writeStatus(rw, se)
			return
		}
		conv.opts = opts
		w := &tableWatchWriter{rw: rw, conv: conv}
		next(w, r)
		w.finish()
		return
	}
	w := &objectResponse{bufferedResponse: bufferedResponse{header: http.Header{}}}
	next(w, r)
	code := w.code
	if code == 0 {
		code = http.StatusOK
	}
	body := w.body.Bytes()
	// The Table is built from the object's JSON view (its rows' objects are as a JSON answer).
	obj, err := defaults.OmitEmptyBytes(w.object), error(nil)
	if obj == nil {
		obj, err = codec.DecodeObject(body)
	}
	if err != nil || isStatusObject(obj) || code >= 300 {
		copyHeader(rw, w.header)
		rw.WriteHeader(code)
		_, _ = rw.Write(body)
		return
	}
	opts, se := parseTableOptions(r.URL.Query())
	if se != nil {
		writeStatus(rw, se)
		return
	}
	conv.opts = opts
	tbl, se := conv.convert(obj)
	if se != nil {
		writeStatus(rw, se)
		return
	}
	var out []byte
	ct := jsonType
	if o.mediaType == yamlType {
		out, err = codec.EncodeYAML(tbl)
		ct = yamlType
	} else {
		out, err = codec.EncodeJSON(tbl)
	}
	if err != nil {
		writeStatus(rw, status.InternalError(err))
		return
	}
	copyHeader(rw, w.header)
	rw.Header().Set("Content-Type", ct)
	rw.Header().Del("Content-Length")
	rw.WriteHeader(code)
	_, _ = rw.Write(out)
}

// objectReceiver is a ResponseWriter that also takes the answer as registry's object
// (serveHTTP hands it over), so that a Table is built without decoding the JSON again.
type objectReceiver interface{ receiveObject(obj map[string]any) }

// objectResponse is a bufferedResponse that keeps the answer's object; the object is only
// read.
type objectResponse struct {
	bufferedResponse
}

func copyHeader(rw http.ResponseWriter, h http.Header) {
	for k, v := range h {
		rw.Header()[k] = v
	}
}

func isStatusObject(obj map[string]any) bool {
	k, _ := obj["kind"].(string)
	av, _ := obj["apiVersion"].(string)
	return k == "Status" && av == "v1"
}

// tableConverter turns the objects of one request into Tables.
type tableConverter struct {
	c       *Cluster
	ctx     context.Context
	target  registry.Target
	version string // meta.k8s.io version of the Table
	opts    tableOptions
	// columns and rows, found on first use: the kind's printer.
	printer *printer
}

// convert is asTable over obj (an object or a list).
func (t *tableConverter) convert(obj map[string]any) (map[string]any, *status.Error) {
	p, err := t.printerFor(obj)
	if err != nil {
		return nil, status.InternalError(err)
	}
	now := t.c.clock.Now()
	md, _ := obj["metadata"].(map[string]any)
	meta := map[string]any{}
	var rows []any
	kind, _ := obj["kind"].(string)
	if items, isList := obj["items"]; isList && strings.HasSuffix(kind, "List") {
		for _, k := range []string{"resourceVersion", "continue", "remainingItemCount"} {
			if v, ok := md[k]; ok && v != "" && v != nil {
				meta[k] = v
			}
		}
		list, _ := items.([]any)
		if p.forList != nil {
			p, list = p.forList(list)
		}
		rows = make([]any, 0, len(list))
		for _, it := range list {
			m, _ := it.(map[string]any)
			rows = append(rows, t.row(p, withKind(m, obj), now))
		}
		if len(list) == 0 && p.nullRows {
			rows = nil
		}
	} else {
		if rv, ok := md["resourceVersion"].(string); ok && rv != "" {
			meta["resourceVersion"] = rv
		}
		rows = []any{t.row(p, obj, now)}
	}
	var cols any
	if !t.opts.noHeaders || p.alwaysHeaders {
		defs := make([]any, len(p.columns))
		for i, c := range p.columns {
			defs[i] = map[string]any{"name": c.Name, "type": c.Type, "format": c.Format, "description": c.Description, "priority": c.Priority}
		}
		cols = defs
	}
	var rowsValue any
	if rows != nil {
		rowsValue = rows
	}
	return map[string]any{
		"kind": "Table", "apiVersion": "meta.k8s.io/" + t.version,
		"metadata": meta, "columnDefinitions": cols, "rows": rowsValue,
	}, nil
}

// row is one TableRow: the printer's cells and conditions, and the object as includeObject
// asks (the initial-events-end bookmark always carries its metadata).
func (t *tableConverter) row(p *printer, obj map[string]any, now time.Time) map[string]any {
	cells, conds := p.row(object(obj), now)
	r := map[string]any{"cells": cells}
	if len(conds) > 0 {
		r["conditions"] = conds
	}
	// The table convertor reads the internal object, whose metadata lacks the annotations some
	// versions' conversions write (defaults.InternalMetadata).
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	md, _ := defaults.InternalMetadata(av, kind, obj["metadata"]).(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	switch {
	case t.opts.includeObject == "Object":
		r["object"] = obj
	case t.opts.includeObject == "None" && ann["k8s.io/initial-events-end"] != "true":
		r["object"] = nil
	default:
		r["object"] = map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/" + t.version, "metadata": partialMetadata(md)}
	}
	return r
}

// partialMetadata is the metadata of meta.AsPartialObjectMetadata: an ObjectMeta, whose
// creationTimestamp is always encoded (null when unset).
func partialMetadata(md map[string]any) map[string]any {
	out := make(map[string]any, len(md)+1)
	for k, v := range md {
		out[k] = v
	}
	if _, ok := out["creationTimestamp"]; !ok {
		out["creationTimestamp"] = nil
	}
	return out
}

// printerFor finds the printer of the request's kind: the scale subresource's, a custom
// resource's columns, a built-in printer, or the default table.
func (t *tableConverter) printerFor(obj map[string]any) (*printer, error) {
	if t.printer != nil {
		return t.printer, nil
	}
	kind, _ := obj["kind"].(string)
	if items, ok := obj["items"]; ok && items != nil || strings.HasSuffix(kind, "List") && obj["items"] != nil {
		kind = strings.TrimSuffix(kind, "List")
	}
	var p *printer
	if b, err := schema.BuiltinForResource(t.target.Resource); err == nil {
		switch {
		case t.target.Subresource == "scale":
			p = builtinPrinter("autoscaling", "Scale")
		default:
			p = builtinPrinter(b.GVK.Group, b.GVK.Kind)
		}
		if p == nil {
			p = defaultPrinter()
		}
	} else {
		cp, err := t.customPrinter(kind)
		if err != nil {
			return nil, err
		}
		p = cp
	}
	t.printer = p
	return p, nil
}

// customPrinter is the custom resource's table: its version's additionalPrinterColumns (Age
// when there are none), or for the scale subresource Desired and Available from the scale
// paths.
func (t *tableConverter) customPrinter(kind string) (*printer, error) {
	res := t.target.Resource
	crdObj, err := t.c.store.Get(t.ctx, Key{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: res.Resource + "." + res.Group})
	if err != nil {
		return defaultPrinter(), nil
	}
	crd, err := schema.FromCRD(crdObj.Value)
	if err != nil {
		return defaultPrinter(), nil
	}
	for _, v := range crd.Versions {
		if v.Name != res.Version {
			continue
		}
		if t.target.Subresource == "scale" {
			return crdScalePrinter(v), nil
		}
		return crdPrinter(v.PrinterColumns), nil
	}
	return defaultPrinter(), nil
}

// tableWatchWriter turns the JSON watch stream's events into events carrying Tables, as the
// lines complete. A response that is not a 200 stream is passed on as it is.
type tableWatchWriter struct {
	rw      http.ResponseWriter
	conv    *tableConverter
	code    int
	buf     []byte
	failed  bool
	started bool
}

func (w *tableWatchWriter) Header() http.Header { return w.rw.Header() }

func (w *tableWatchWriter) WriteHeader(code int) {
	if w.code != 0 {
		return
	}
	w.code = code
	w.rw.WriteHeader(code)
	w.started = true
}

func (w *tableWatchWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.code != http.StatusOK {
		return w.rw.Write(p)
	}
	if w.failed {
		return 0, errWatchClosed
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		if err := w.event(w.buf[:i]); err != nil {
			w.failed = true
			return 0, err
		}
		w.buf = append(w.buf[:0], w.buf[i+1:]...)
	}
	if len(w.buf) > maxWatchEventBytes {
		w.failed = true
		return 0, errWatchClosed
	}
	return len(p), nil
}

func (w *tableWatchWriter) event(line []byte) error {
	typ, obj, blank, err := watchLine(line)
	if blank || err != nil {
		return err
	}
	if obj != nil {
		// As the apiserver's watchEmbeddedEncoder: a Status goes as it is, an object that
		// does not convert goes untransformed, and after the first object encoded (whatever
		// it was) the Tables carry no column definitions.
		if !isStatusObject(obj) {
			if tbl, se := w.conv.convert(obj); se == nil {
				obj = tbl
			}
		}
		w.conv.opts.noHeaders = true
	}
	var b bytes.Buffer
	writeEvent(&b, typ, obj)
	_, err = w.rw.Write(b.Bytes())
	return err
}

func (w *tableWatchWriter) Flush() {
	if f, ok := w.rw.(http.Flusher); ok && w.started {
		f.Flush()
	}
}

func (w *tableWatchWriter) finish() {}

var errWatchClosed = &status.Error{Code: http.StatusInternalServerError, Message: "watch stream closed"}

// formatRFC3339 is a timestamp cell of the default table (creationTimestamp in UTC, RFC 3339).
func formatRFC3339(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return "0001-01-01T00:00:00Z"
	}
	return t.UTC().Format(time.RFC3339)
}

// humanDuration is k8s.io/apimachinery's duration.HumanDuration.
func humanDuration(d time.Duration) string {
	if seconds := int(d.Seconds()); seconds < -1 {
		return "<invalid>"
	} else if seconds < 0 {
		return "0s"
	} else if seconds < 60*2 {
		return strconv.Itoa(seconds) + "s"
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		s := int(d/time.Second) % 60
		if s == 0 {
			return strconv.Itoa(minutes) + "m"
		}
		return strconv.Itoa(minutes) + "m" + strconv.Itoa(s) + "s"
	} else if minutes < 60*3 {
		return strconv.Itoa(minutes) + "m"
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		m := int(d/time.Minute) % 60
		if m == 0 {
			return strconv.Itoa(hours) + "h"
		}
		return strconv.Itoa(hours) + "h" + strconv.Itoa(m) + "m"
	case hours < 48:
		return strconv.Itoa(hours) + "h"
	case hours < 24*8:
		h := hours % 24
		if h == 0 {
			return strconv.Itoa(hours/24) + "d"
		}
		return strconv.Itoa(hours/24) + "d" + strconv.Itoa(h) + "h"
	case hours < 24*365*2:
		return strconv.Itoa(hours/24) + "d"
	case hours < 24*365*8:
		dy := (hours / 24) % 365
		if dy == 0 {
			return strconv.Itoa(hours/24/365) + "y"
		}
		return strconv.Itoa(hours/24/365) + "y" + strconv.Itoa(dy) + "d"
	}
	return strconv.Itoa(hours/24/365) + "y"
}

// since is translateTimestampSince on the cluster's clock: "<unknown>" for no time.
func since(ts string, now time.Time) string {
	if ts == "" {
		return "<unknown>"
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil || t.IsZero() {
		return "<unknown>"
	}
	return humanDuration(now.Sub(t))
}
