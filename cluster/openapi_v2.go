package cluster

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/status"
)

// /openapi/v2: the one Swagger 2.0 document of every group version, in JSON or in gnostic's
// protobuf (openapi_v2proto.go). The built-in part is the document the real 1.37 apiserver
// served (data/openapi/v2.json.gz); each served version of a stored CRD adds its paths and
// definitions (openapi_crd.go).

const (
	openAPIV2ProtoType   = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	openAPIV2ProtoLegacy = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
)

// builtinV2JSON is the recorded built-in document as served; builtinV2 is it decoded, shared
// read-only.
var builtinV2JSON = sync.OnceValues(func() (*openAPIDoc, error) {
	b, err := gunzipFile("data/openapi/v2.json.gz")
	if err != nil {
		return nil, err
	}
	return newOpenAPIDoc(b), nil
})

var builtinV2 = sync.OnceValues(func() (map[string]any, error) {
	d, err := builtinV2JSON()
	if err != nil {
		return nil, err
	}
	return codec.Options{MaxBytes: -1, Format: codec.FormatJSON}.DecodeObject(d.body)
})

// builtinV2Proto is the built-in document in protobuf. A state with CRDs appends a Document
// holding only their paths and definitions: protobuf merges a repeated occurrence of a message
// field into the first, so the concatenation decodes as one Document with both.
var builtinV2Proto = sync.OnceValues(func() ([]byte, error) {
	doc, err := builtinV2()
	if err != nil {
		return nil, err
	}
	return encodeOpenAPIV2(doc), nil
})

// v2 builds (once per state, each form when first asked for) the JSON or protobuf document.
func (s *openAPIState) v2(proto bool) (*openAPIDoc, error) {
	s.v2Once.Do(func() {
		s.v2Paths, s.v2Defs, s.v2Err = crdOpenAPIV2(s.crds)
	})
	if s.v2Err != nil {
		return nil, s.v2Err
	}
	custom := len(s.v2Paths) > 0 || len(s.v2Defs) > 0
	if proto {
		s.v2ProtOnce.Do(func() {
			prot, err := builtinV2Proto()
			if err != nil {
				s.v2ProtErr = err
				return
			}
			if custom {
				extra := encodeOpenAPIV2(map[string]any{"paths": s.v2Paths, "definitions": s.v2Defs})
				prot = append(append(make([]byte, 0, len(prot)+len(extra)), prot...), extra...)
			}
			s.v2Prot = newOpenAPIDoc(prot)
		})
		return s.v2Prot, s.v2ProtErr
	}
	s.v2JSONOnce.Do(func() {
		if !custom {
			s.v2JSON, s.v2JSONErr = builtinV2JSON()
			return
		}
		builtin, err := builtinV2()
		if err != nil {
			s.v2JSONErr = err
			return
		}
		doc := make(map[string]any, len(builtin))
		for k, v := range builtin {
			doc[k] = v
		}
		doc["paths"] = mergedObject(builtin["paths"], s.v2Paths)
		doc["definitions"] = mergedObject(builtin["definitions"], s.v2Defs)
		j, err := codec.EncodeJSON(doc)
		if err != nil {
			s.v2JSONErr = err
			return
		}
		s.v2JSON = newOpenAPIDoc(j)
	})
	return s.v2JSON, s.v2JSONErr
}

// mergedObject is base's properties with extra's added (base's win), without changing either.
func mergedObject(base any, extra map[string]any) map[string]any {
	b, _ := base.(map[string]any)
	out := make(map[string]any, len(b)+len(extra))
	for k, v := range extra {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// serveOpenAPIV2 answers /openapi/v2 in the form Accept prefers (JSON, or protobuf under
// either of its media type names), as kube-openapi's handler does.
func (c *Cluster) serveOpenAPIV2(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Cache-Control", "no-cache, private")
	rw.Header().Add("Vary", "Accept-Encoding")
	rw.Header().Add("Vary", "Accept")
	proto, ok := negotiateOpenAPIV2(r.Header.Get("Accept"))
	if !ok {
		rw.WriteHeader(http.StatusNotAcceptable)
		return
	}
	s, err := c.openAPI(r.Context())
	if err != nil {
		writeStatus(rw, status.InternalError(err))
		return
	}
	d, err := s.v2(proto)
	if err != nil {
		writeStatus(rw, status.InternalError(err))
		return
	}
	ct := "application/json"
	if proto {
		ct = openAPIV2ProtoLegacy
	}
	rw.Header().Set("Content-Type", ct)
	rw.Header().Set("Etag", strconv.Quote(d.hash))
	http.ServeContent(rw, r, "", time.Time{}, bytes.NewReader(d.body))
}

// negotiateOpenAPIV2 reports whether Accept prefers protobuf, and whether it takes a form served.
func negotiateOpenAPIV2(accept string) (proto, ok bool) {
	if strings.TrimSpace(accept) == "" {
		return false, true
	}
	for _, cl := range parseMediaRanges(accept) {
		switch cl.typ + "/" + cl.subtype {
		case "application/json", "*/*", "application/*":
			return false, true
		case openAPIV2ProtoType, openAPIV2ProtoLegacy:
			return true, true
		}
	}
	return false, false
}

// crdOpenAPIV2 returns the paths and definitions the stored CRDs add to /openapi/v2: the v3
// documents' operations in Swagger 2.0 form (request bodies as body parameters, media types as
// consumes and produces, https), and their kinds' schemas as the apiserver converts them for
// v2 (openapi_crd.go). The apiserver refers to parameters it has defined once for the whole
// document (#/parameters/...); here every parameter is written in place, which reads the same.
func crdOpenAPIV2(crds []map[string]any) (paths, defs map[string]any, err error) {
	kinds := servedCRDKinds(crds)
	if len(kinds) == 0 {
		return nil, nil, nil
	}
	params, err := recordedCRDParameters()
	if err != nil {
		return nil, nil, err
	}
	paths, defs = map[string]any{}, map[string]any{}
	r := openAPIRefs{v2: true}
	for _, ks := range kinds {
		for _, k := range ks {
			for p, item := range k.crdPaths(params) {
				paths[p] = v2PathItem(item.(map[string]any))
			}
			defs[crdDefinitionName(k.group, k.version, k.kind)] = k.kindSchema(r)
			defs[crdDefinitionName(k.group, k.version, k.listKind)] = k.listSchema(r)
		}
	}
	return paths, defs, nil
}

// v2PathItem converts a v3 path item of openapi_crd.go to Swagger 2.0.
func v2PathItem(item map[string]any) map[string]any {
	out := map[string]any{}
	for method, v := range item {
		if method == "parameters" {
			out[method] = v2Parameters(v)
			continue
		}
		op, _ := v.(map[string]any)
		o := map[string]any{"produces": []any{"application/json", "application/yaml"}, "schemes": []any{"https"},
			"consumes": []any{"application/json", "application/yaml"}}
		for k, x := range op {
			switch k {
			case "parameters", "requestBody", "responses":
			default:
				o[k] = x
			}
		}
		var ps []any
		if rb, ok := op["requestBody"].(map[string]any); ok {
			content, _ := rb["content"].(map[string]any)
			var types []string
			var ref string
			for t, c := range content {
				types = append(types, t)
				cm, _ := c.(map[string]any)
				sch, _ := cm["schema"].(map[string]any)
				ref, _ = sch["$ref"].(string)
			}
			if _, patch := content["application/json-patch+json"]; patch {
				types = []string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}
			} else {
				types = []string{"application/json", "application/yaml"}
			}
			o["consumes"] = stringsToAny(types)
			body := map[string]any{"in": "body", "name": "body", "schema": map[string]any{"$ref": v2Ref(ref)}}
			if rb["required"] == true {
				body["required"] = true
			}
			ps = append(ps, body)
		}
		if l, ok := op["parameters"].([]any); ok && len(l) > 0 {
			ps = append(ps, v2Parameters(l)...)
		}
		if len(ps) > 0 {
			o["parameters"] = ps
		}
		responses := map[string]any{}
		rs, _ := op["responses"].(map[string]any)
		for code, x := range rs {
			resp, _ := x.(map[string]any)
			nr := map[string]any{"description": resp["description"]}
			if content, ok := resp["content"].(map[string]any); ok {
				if j, ok := content["application/json"].(map[string]any); ok {
					sch, _ := j["schema"].(map[string]any)
					ref, _ := sch["$ref"].(string)
					nr["schema"] = map[string]any{"$ref": v2Ref(ref)}
				}
			}
			responses[code] = nr
		}
		o["responses"] = responses
		out[method] = o
	}
	return out
}

// v2Parameters moves each parameter's schema (type, uniqueItems) up beside it.
func v2Parameters(v any) []any {
	l, _ := v.([]any)
	out := make([]any, 0, len(l))
	for _, x := range l {
		p, _ := x.(map[string]any)
		np := map[string]any{}
		for k, y := range p {
			if k == "schema" {
				if sch, ok := y.(map[string]any); ok {
					for sk, sv := range sch {
						np[sk] = sv
					}
				}
				continue
			}
			np[k] = y
		}
		out = append(out, np)
	}
	return out
}

func v2Ref(ref string) string {
	return "#/definitions/" + strings.TrimPrefix(ref, "#/components/schemas/")
}

func stringsToAny(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}
