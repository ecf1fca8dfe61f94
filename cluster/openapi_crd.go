package cluster

import (
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
)

// The OpenAPI documents of custom resources, as apiextensions-apiserver 1.37 publishes them for
// each served version of a CRD: under /openapi/v3 one document per group version (the CRDs of
// a group version merged), and in /openapi/v2 the same paths and definitions.
//
// The schema of a kind is its CRD version's openAPIV3Schema with apiVersion, kind and metadata
// (a reference to ObjectMeta) added, and the same three in every x-kubernetes-embedded-resource
// object; its List kind is built as the apiserver builds it. The operations are those of the
// apiserver's CRD route builder: list, create and deletecollection on the collection, read,
// replace, patch and delete on an object, read, replace and patch on status and scale, list
// across namespaces; their parameters are the ones the real apiserver documents for the same
// operations of a built-in kind (taken from the recorded apps/v1 document: Deployments), their
// media types JSON and YAML only (patches: JSON patch, merge patch and apply). The meta
// definitions they refer to are the ones the real apiserver puts beside every custom resource
// (data/openapi/crd-v3-definitions.json.gz, recorded).

// crdKind is one served version of a CRD, as its documents need it.
type crdKind struct {
	group, version, kind, listKind, plural string
	namespaced, status, scale              bool
	schema                                 map[string]any // openAPIV3Schema, nil when absent
	preserveUnknown                        bool           // spec.preserveUnknownFields
}

// servedCRDKinds reads the served versions of the stored CRDs, by group version ("apis/g/v"),
// in the order of their kinds' names.
func servedCRDKinds(crds []map[string]any) map[string][]crdKind {
	out := map[string][]crdKind{}
	for _, crd := range crds {
		spec, _ := crd["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		kind, _ := names["kind"].(string)
		listKind, _ := names["listKind"].(string)
		plural, _ := names["plural"].(string)
		if group == "" || kind == "" || plural == "" {
			continue
		}
		if listKind == "" {
			listKind = kind + "List"
		}
		scope, _ := spec["scope"].(string)
		preserve, _ := spec["preserveUnknownFields"].(bool)
		versions, _ := spec["versions"].([]any)
		for _, raw := range versions {
			v, _ := raw.(map[string]any)
			name, _ := v["name"].(string)
			if served, _ := v["served"].(bool); !served || name == "" {
				continue
			}
			k := crdKind{group: group, version: name, kind: kind, listKind: listKind, plural: plural,
				namespaced: scope != "Cluster", preserveUnknown: preserve}
			if sub, ok := v["subresources"].(map[string]any); ok {
				_, k.status = sub["status"].(map[string]any)
				_, k.scale = sub["scale"].(map[string]any)
			}
			if s, ok := v["schema"].(map[string]any); ok {
				k.schema, _ = s["openAPIV3Schema"].(map[string]any)
			}
			gv := "apis/" + group + "/" + name
			out[gv] = append(out[gv], k)
		}
	}
	for _, ks := range out {
		sort.Slice(ks, func(i, j int) bool { return ks[i].kind < ks[j].kind })
	}
	return out
}

// crdDefinitionName is the OpenAPI definition name of a custom resource's kind: the group's
// labels reversed, the version and the kind ("com.example.stable.v1.CronTab").
func crdDefinitionName(group, version, kind string) string {
	labels := strings.Split(group, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	return strings.Join(labels, ".") + "." + version + "." + kind
}

// operationName is the apiserver's identifier form of a group and version in operation IDs and
// tags: ".k8s.io" dropped, every character that is not a letter or digit dropped and the next
// one upper-cased ("stable.example.com", "v1" -> "StableExampleComV1").
func operationName(s string) string {
	var b strings.Builder
	upper := true
	for _, r := range strings.TrimSuffix(s, ".k8s.io") {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// crdParameters are the parameters the apiserver documents for each operation, taken from the
// recorded apps/v1 document's Deployment operations.
type crdParameters struct {
	byOp map[string]map[string]any // "list", "post", "put", "patch", "delete" -> name -> parameter
	path map[string]any            // "namespace", "pretty"
}

var recordedCRDParameters = sync.OnceValues(func() (*crdParameters, error) {
	docs, err := builtinV3()
	if err != nil {
		return nil, err
	}
	d, ok := docs["apis/apps/v1"]
	if !ok {
		return nil, errMissingDoc("apis/apps/v1")
	}
	doc, err := codec.Options{MaxBytes: -1, Format: codec.FormatJSON}.DecodeObject(d.body)
	if err != nil {
		return nil, err
	}
	paths, _ := doc["paths"].(map[string]any)
	params := func(path, method string) map[string]any {
		item, _ := paths[path].(map[string]any)
		var l []any
		if method == "" {
			l, _ = item["parameters"].([]any)
		} else {
			op, _ := item[method].(map[string]any)
			l, _ = op["parameters"].([]any)
		}
		out := map[string]any{}
		for _, p := range l {
			if m, ok := p.(map[string]any); ok {
				if n, ok := m["name"].(string); ok {
					out[n] = m
				}
			}
		}
		return out
	}
	const coll, item = "/apis/apps/v1/namespaces/{namespace}/deployments", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"
	p := &crdParameters{byOp: map[string]map[string]any{
		"list": params(coll, "get"), "post": params(coll, "post"), "put": params(item, "put"),
		"patch": params(item, "patch"), "delete": params(item, "delete"),
	}, path: params(item, "")}
	return p, nil
})

type errMissingDoc string

func (e errMissingDoc) Error() string { return "openapi: no recorded document " + string(e) }

// crdCommonDefinitions are the meta definitions the apiserver puts beside custom resources.
var crdCommonDefinitions = sync.OnceValues(func() (map[string]any, error) {
	b, err := gunzipFile("data/openapi/crd-v3-definitions.json.gz")
	if err != nil {
		return nil, err
	}
	return codec.Options{MaxBytes: -1, Format: codec.FormatJSON}.DecodeObject(b)
})

var (
	listParams   = []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "shardSelector", "timeoutSeconds", "watch"}
	writeParams  = []string{"dryRun", "fieldManager", "fieldValidation"}
	patchParams  = []string{"dryRun", "fieldManager", "fieldValidation", "force"}
	deleteParams = []string{"dryRun", "gracePeriodSeconds", "ignoreStoreReadErrorWithClusterBreakingPotential", "orphanDependents", "propagationPolicy"}
)

const (
	typeMetaAPIVersion = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	typeMetaKind       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	embeddedAPIVersion = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	embeddedKind       = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	objectMetaDesc     = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	listMetaDesc       = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	metaPrefix         = "io.k8s.apimachinery.pkg.apis.meta.v1."
)

// openAPIRefs writes references for v3 ("#/components/schemas/") or v2 ("#/definitions/").
type openAPIRefs struct{ v2 bool }

func (r openAPIRefs) ref(name string) map[string]any {
	if r.v2 {
		return map[string]any{"$ref": "#/definitions/" + name}
	}
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// described is a reference with a description: v3 wraps the reference in allOf, v2 writes the
// two side by side, as kube-openapi does.
func (r openAPIRefs) described(name, desc string) map[string]any {
	if r.v2 {
		m := r.ref(name)
		m["description"] = desc
		return m
	}
	return map[string]any{"allOf": []any{r.ref(name)}, "description": desc}
}

// kindSchema is the definition of k's kind.
func (k crdKind) kindSchema(r openAPIRefs) map[string]any {
	gvk := []any{map[string]any{"group": k.group, "kind": k.kind, "version": k.version}}
	var s map[string]any
	switch {
	case k.schema == nil:
		s = map[string]any{"type": "object"}
	case r.v2 && (k.preserveUnknown || k.schema["x-kubernetes-preserve-unknown-fields"] == true):
		// kubectl would refuse every field a v2 schema does not name: only the type.
		s = map[string]any{"type": "object"}
	default:
		s, _ = value.DeepCopyMap(k.schema)
		if r.v2 {
			s = toOpenAPIV2Schema(s)
		} else {
			unfoldIntOrString(s)
		}
		props, _ := s["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			s["properties"] = props
		}
		props["metadata"] = r.described(metaPrefix+"ObjectMeta", objectMetaDesc)
		props["apiVersion"] = map[string]any{"description": typeMetaAPIVersion, "type": "string"}
		props["kind"] = map[string]any{"description": typeMetaKind, "type": "string"}
		for name, p := range props {
			if name != "metadata" && name != "apiVersion" && name != "kind" {
				addEmbeddedProperties(p, r)
			}
		}
	}
	s["x-kubernetes-group-version-kind"] = gvk
	return s
}

// listSchema is the definition of k's List kind.
func (k crdKind) listSchema(r openAPIRefs) map[string]any {
	return map[string]any{
		"description": k.listKind + " is a list of " + k.kind,
		"required":    []any{"items"},
		"type":        "object",
		"properties": map[string]any{
			"apiVersion": map[string]any{"description": typeMetaAPIVersion, "type": "string"},
			"kind":       map[string]any{"description": typeMetaKind, "type": "string"},
			"metadata":   r.described(metaPrefix+"ListMeta", listMetaDesc),
			"items": map[string]any{"type": "array", "items": r.ref(crdDefinitionName(k.group, k.version, k.kind)),
				"description": "List of " + k.plural + ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"},
		},
		"x-kubernetes-group-version-kind": []any{map[string]any{"group": k.group, "kind": k.listKind, "version": k.version}},
	}
}

// addEmbeddedProperties adds apiVersion, kind and metadata to every object marked
// x-kubernetes-embedded-resource under s (in v2, not below preserve-unknown-fields).
func addEmbeddedProperties(v any, r openAPIRefs) {
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			addEmbeddedProperties(p, r)
		}
	}
	addEmbeddedProperties(s["items"], r)
	addEmbeddedProperties(s["additionalProperties"], r)
	if r.v2 && s["x-kubernetes-preserve-unknown-fields"] == true {
		return
	}
	if s["x-kubernetes-embedded-resource"] != true {
		return
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		s["properties"] = props
	}
	props["apiVersion"] = map[string]any{"description": embeddedAPIVersion, "type": "string"}
	props["kind"] = map[string]any{"description": embeddedKind, "type": "string"}
	props["metadata"] = r.described(metaPrefix+"ObjectMeta", objectMetaDesc)
	req, _ := s["required"].([]any)
	for _, want := range []string{"kind", "apiVersion"} {
		found := false
		for _, x := range req {
			found = found || x == want
		}
		if !found {
			req = append(req, want)
		}
	}
	s["required"] = req
}

// unfoldIntOrString gives every x-kubernetes-int-or-string schema without junctors its
// anyOf of integer and string, as the structural schema's Unfold does for v3.
func unfoldIntOrString(v any) {
	walkSchemas(v, func(s map[string]any) {
		if s["x-kubernetes-int-or-string"] != true {
			return
		}
		if _, ok := s["anyOf"]; ok {
			return
		}
		if _, ok := s["allOf"]; ok {
			return
		}
		s["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
	})
}

// toOpenAPIV2Schema strips what OpenAPI v2 (and kubectl's v2 models) cannot read, as the
// apiserver's v2 conversion does: the junctors oneOf, anyOf and not, nullable (and the type of
// a nullable value), defaults, the type of int-or-string values, and everything but the
// extensions of preserve-unknown-fields objects.
func toOpenAPIV2Schema(s map[string]any) map[string]any {
	walkSchemas(s, func(m map[string]any) {
		for _, k := range []string{"oneOf", "anyOf", "not", "default"} {
			delete(m, k)
		}
		if m["nullable"] == true {
			delete(m, "type")
		}
		delete(m, "nullable")
		if m["x-kubernetes-int-or-string"] == true {
			delete(m, "type")
		}
		if m["x-kubernetes-preserve-unknown-fields"] == true {
			for k := range m {
				if !strings.HasPrefix(k, "x-kubernetes-") && k != "description" {
					delete(m, k)
				}
			}
		}
	})
	return s
}

// walkSchemas calls f on v and on every schema below it (properties, items, additionalProperties,
// allOf), parents first.
func walkSchemas(v any, f func(map[string]any)) {
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	f(s)
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			walkSchemas(p, f)
		}
	}
	walkSchemas(s["items"], f)
	walkSchemas(s["additionalProperties"], f)
	if l, ok := s["allOf"].([]any); ok {
		for _, e := range l {
			walkSchemas(e, f)
		}
	}
}

// crdOperation is one operation of a custom resource's path.
type crdOperation struct {
	method, action, verb string // HTTP method, x-kubernetes-action, operation verb
	sub                  string // "", "status", "scale"
	params               []string
	paramsFrom           string // which recorded operation's parameters
	body                 string // request body definition ("" for none)
	bodyRequired         bool
	patch                bool
	response             string
	codes                []string
}

// crdPaths returns the path items of k (v3 form).
func (k crdKind) crdPaths(p *crdParameters) map[string]any {
	name := crdDefinitionName(k.group, k.version, k.kind)
	list := crdDefinitionName(k.group, k.version, k.listKind)
	const status, patch, deleteOptions, scale = metaPrefix + "Status", metaPrefix + "Patch", metaPrefix + "DeleteOptions", "io.k8s.api.autoscaling.v1.Scale"
	root := "/apis/" + k.group + "/" + k.version
	coll := root + "/" + k.plural
	if k.namespaced {
		coll = root + "/namespaces/{namespace}/" + k.plural
	}
	gv := operationName(k.group) + operationName(k.version)
	tag := operationName(k.group)
	if tag != "" {
		tag = strings.ToLower(tag[:1]) + tag[1:]
	}
	tag += "_" + k.version
	ns := ""
	if k.namespaced {
		ns = "Namespaced"
	}
	paths := map[string]any{}
	addPath := func(path string, pathParams []any, ops []crdOperation) {
		item := map[string]any{"parameters": pathParams}
		for _, o := range ops {
			sub := ""
			if o.sub != "" {
				sub = " " + o.sub + " of"
			}
			var desc, id string
			switch o.verb {
			case "list":
				desc, id = "list objects of kind "+k.kind, "list"+gv+ns+k.kind
			case "create":
				desc, id = "create "+article(k.kind)+k.kind, "create"+gv+ns+k.kind
			case "deletecollection":
				desc, id = "delete collection of "+k.kind, "delete"+gv+"Collection"+ns+k.kind
			case "read":
				desc, id = "read"+sub+" the specified "+k.kind, "read"+gv+ns+k.kind+title(o.sub)
			case "replace":
				desc, id = "replace"+sub+" the specified "+k.kind, "replace"+gv+ns+k.kind+title(o.sub)
			case "patch":
				desc, id = "partially update"+sub+" the specified "+k.kind, "patch"+gv+ns+k.kind+title(o.sub)
			case "delete":
				desc, id = "delete "+article(k.kind)+k.kind, "delete"+gv+ns+k.kind
			}
			op := map[string]any{
				"description": desc, "operationId": id, "tags": []any{tag}, "x-kubernetes-action": o.action,
				"x-kubernetes-group-version-kind": map[string]any{"group": k.group, "kind": k.kind, "version": k.version},
			}
			params := []any{}
			for _, n := range o.params {
				if prm, ok := p.byOp[o.paramsFrom][n]; ok {
					params = append(params, prm)
				} else if prm, ok := p.byOp["list"][n]; ok {
					params = append(params, prm)
				}
			}
			if len(params) > 0 {
				op["parameters"] = params
			}
			if o.body != "" {
				types := []string{"application/json", "application/yaml"}
				if o.patch {
					types = []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"}
				}
				content := map[string]any{}
				for _, t := range types {
					content[t] = map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + o.body}}
				}
				rb := map[string]any{"content": content}
				if o.bodyRequired {
					rb["required"] = true
				}
				op["requestBody"] = rb
			}
			responses := map[string]any{"401": map[string]any{"description": "Unauthorized"}}
			for _, code := range o.codes {
				responses[code] = map[string]any{"description": map[string]string{"200": "OK", "201": "Created", "202": "Accepted"}[code],
					"content": map[string]any{
						"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + o.response}},
						"application/yaml": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + o.response}},
					}}
			}
			op["responses"] = responses
			item[o.method] = op
		}
		paths[path] = item
	}
	nameParam := map[string]any{"description": "name of the " + k.kind, "in": "path", "name": "name", "required": true,
		"schema": map[string]any{"type": "string", "uniqueItems": true}}
	collParams := []any{p.path["pretty"]}
	itemParams := []any{nameParam, p.path["pretty"]}
	if k.namespaced {
		collParams = []any{p.path["namespace"], p.path["pretty"]}
		itemParams = []any{nameParam, p.path["namespace"], p.path["pretty"]}
	}
	addPath(coll, collParams, []crdOperation{
		{method: "get", action: "list", verb: "list", params: listParams, paramsFrom: "list", response: list, codes: []string{"200"}},
		{method: "post", action: "post", verb: "create", params: writeParams, paramsFrom: "post", body: name, bodyRequired: true, response: name, codes: []string{"200", "201", "202"}},
		{method: "delete", action: "deletecollection", verb: "deletecollection", params: listParams, paramsFrom: "list", response: status, codes: []string{"200"}},
	})
	addPath(coll+"/{name}", itemParams, []crdOperation{
		{method: "get", action: "get", verb: "read", params: []string{"resourceVersion"}, paramsFrom: "list", response: name, codes: []string{"200"}},
		{method: "put", action: "put", verb: "replace", params: writeParams, paramsFrom: "put", body: name, bodyRequired: true, response: name, codes: []string{"200", "201"}},
		{method: "patch", action: "patch", verb: "patch", params: patchParams, paramsFrom: "patch", body: patch, bodyRequired: true, patch: true, response: name, codes: []string{"200"}},
		{method: "delete", action: "delete", verb: "delete", params: deleteParams, paramsFrom: "delete", body: deleteOptions, response: status, codes: []string{"200", "202"}},
	})
	for _, sub := range []struct {
		on   bool
		name string
		kind string
	}{{k.status, "status", name}, {k.scale, "scale", scale}} {
		if !sub.on {
			continue
		}
		addPath(coll+"/{name}/"+sub.name, itemParams, []crdOperation{
			{method: "get", action: "get", verb: "read", sub: sub.name, params: []string{"resourceVersion"}, paramsFrom: "list", response: sub.kind, codes: []string{"200"}},
			{method: "put", action: "put", verb: "replace", sub: sub.name, params: writeParams, paramsFrom: "put", body: sub.kind, bodyRequired: true, response: sub.kind, codes: []string{"200", "201"}},
			{method: "patch", action: "patch", verb: "patch", sub: sub.name, params: patchParams, paramsFrom: "patch", body: patch, bodyRequired: true, patch: true, response: sub.kind, codes: []string{"200"}},
		})
	}
	if k.namespaced {
		// Across namespaces: the list parameters on the path, none on the operation.
		all := []any{}
		for _, n := range append(append([]string(nil), listParams[:5]...), append([]string{"pretty"}, listParams[5:]...)...) {
			if n == "pretty" {
				all = append(all, p.path["pretty"])
			} else {
				all = append(all, p.byOp["list"][n])
			}
		}
		addPath(root+"/"+k.plural, all, []crdOperation{
			{method: "get", action: "list", verb: "list", response: list, codes: []string{"200"}},
		})
		item := paths[root+"/"+k.plural].(map[string]any)
		op := item["get"].(map[string]any)
		op["operationId"] = "list" + gv + k.kind + "ForAllNamespaces"
	}
	return paths
}

// article is "a " or "an " before a kind, as the apiserver's descriptions write it.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("AEIOU", unicode.ToUpper(rune(noun[0]))) {
		return "an "
	}
	return "a "
}

func title(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// crdOpenAPIV3 returns the /openapi/v3 document of every group version the stored CRDs serve.
func crdOpenAPIV3(crds []map[string]any) (map[string]*openAPIDoc, error) {
	kinds := servedCRDKinds(crds)
	if len(kinds) == 0 {
		return nil, nil
	}
	params, err := recordedCRDParameters()
	if err != nil {
		return nil, err
	}
	common, err := crdCommonDefinitions()
	if err != nil {
		return nil, err
	}
	out := map[string]*openAPIDoc{}
	r := openAPIRefs{}
	for gv, ks := range kinds {
		paths, schemas := map[string]any{}, map[string]any{}
		for _, k := range ks {
			for p, item := range k.crdPaths(params) {
				paths[p] = item
			}
			schemas[crdDefinitionName(k.group, k.version, k.kind)] = k.kindSchema(r)
			schemas[crdDefinitionName(k.group, k.version, k.listKind)] = k.listSchema(r)
		}
		addReferenced(schemas, common, paths, "#/components/schemas/")
		doc := map[string]any{"openapi": "3.0.0", "info": map[string]any{"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
			"paths": paths, "components": map[string]any{"schemas": schemas}}
		b, err := codec.EncodeJSON(doc)
		if err != nil {
			return nil, err
		}
		out[gv] = newOpenAPIDoc(b)
	}
	return out, nil
}

// addReferenced adds to schemas every definition of common that paths or schemas refer to,
// and the ones those refer to.
func addReferenced(schemas, common map[string]any, paths map[string]any, prefix string) {
	var queue []string
	collect := func(v any) {
		walkValues(v, func(m map[string]any) {
			if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, prefix) {
				queue = append(queue, strings.TrimPrefix(ref, prefix))
			}
		})
	}
	collect(paths)
	collect(schemas)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if _, ok := schemas[n]; ok {
			continue
		}
		if d, ok := common[n]; ok {
			schemas[n] = d
			collect(d)
		}
	}
}

// walkValues calls f on every object in v.
func walkValues(v any, f func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		f(t)
		for _, e := range t {
			walkValues(e, f)
		}
	case []any:
		for _, e := range t {
			walkValues(e, f)
		}
	}
}
