package cluster

import (
	"context"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/codec/protobuf"
	"github.com/writepath/writepath/status"
)

// Content negotiation and encodings of aggregated discovery: JSON in apidiscovery.k8s.io/v2, and
// the Kubernetes protobuf envelope, chosen by Accept as the apiserver's negotiation (goautoneg:
// highest q first, then the order written) chooses. v2beta1 is no longer served by 1.37 (a
// request for it alone is 406, as recorded); a request that names no aggregated form gets the
// legacy documents.

// discoveryForm is one served form of the aggregated document.
type discoveryForm struct {
	version string // "v2"
	proto   bool
}

func (f discoveryForm) contentType() string {
	mt := "application/json"
	if f.proto {
		mt = protobufType
	}
	return mt + ";g=apidiscovery.k8s.io;v=" + f.version + ";as=APIGroupDiscoveryList"
}

// negotiateDiscovery returns the aggregated form accept asks for, or false when the legacy
// document is to be served (a plain application/json, */*, or nothing the server serves).
func negotiateDiscovery(accept string) (discoveryForm, bool) {
	for _, cl := range parseMediaRanges(accept) {
		mt, p := cl.typ+"/"+cl.subtype, cl.params
		switch {
		case p["as"] == "APIGroupDiscoveryList" && p["g"] == "apidiscovery.k8s.io" && p["v"] == "v2" &&
			(mt == "application/json" || mt == protobufType):
			return discoveryForm{version: p["v"], proto: mt == protobufType}, true
		case p["as"] == "" && (mt == "application/json" || mt == "*/*" || mt == "application/*" || mt == protobufType || mt == yamlType):
			return discoveryForm{}, false
		}
	}
	return discoveryForm{}, false
}

// negotiateLegacyDiscovery picks the media type of a legacy discovery document: JSON or YAML
// (protobuf is answered in JSON: writepath has no protobuf form of the discovery types; client-go
// asks for JSON). A refused Accept is the apiserver's 406: the aggregator's words for /apis and a
// group's document (aggregator) and for a known media type with parameters the document does
// not take (as=Table, an aggregated form not served), the legacy handler's otherwise.
func negotiateLegacyDiscovery(accept string, aggregator bool) (string, *status.Error) {
	if strings.TrimSpace(accept) == "" {
		return jsonType, nil
	}
	known := false
	for _, cl := range parseMediaRanges(accept) {
		mt := cl.typ + "/" + cl.subtype
		switch mt {
		case "application/json", "*/*", "application/*", protobufType, yamlType:
		default:
			continue
		}
		known = true
		if cl.params["as"] != "" || cl.params["g"] != "" || cl.params["v"] != "" {
			continue
		}
		if mt == yamlType {
			return yamlType, nil
		}
		return jsonType, nil
	}
	if aggregator || known {
		return "", discoveryNotAcceptable()
	}
	return "", &status.Error{Code: http.StatusNotAcceptable, Reason: "NotAcceptable", Details: &status.Details{},
		Message: "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf"}
}

// writeDiscovery writes a legacy discovery document (or its 404 Status) as JSON or YAML.
func writeDiscovery(rw http.ResponseWriter, code int, mediaType string, v any) {
	if mediaType != yamlType {
		if se, ok := v.(*status.Error); ok {
			writeStatus(rw, se)
			return
		}
		writeJSON(rw, code, v)
		return
	}
	j, err := json.Marshal(v)
	if err != nil {
		writeStatus(rw, status.InternalError(err))
		return
	}
	obj, err := codec.DecodeValue(j)
	if err != nil {
		writeStatus(rw, status.InternalError(err))
		return
	}
	y, err := codec.EncodeYAML(obj)
	if err != nil {
		writeStatus(rw, status.InternalError(err))
		return
	}
	rw.Header().Set("Content-Type", yamlType)
	rw.WriteHeader(code)
	_, _ = rw.Write(y)
}

// aggregatedDiscovery writes /api's (core) or /apis' document in form, with the apiserver's
// ETag (the SHA-512 of the JSON document) and a 304 for a matching If-None-Match. Documents are
// kept until the stored CRDs change.
func (c *Cluster) aggregatedDiscovery(rw http.ResponseWriter, r *http.Request, core bool, form discoveryForm) {
	d, err := c.discoveryDoc(r.Context(), core, form)
	if err != nil {
		writeStatus(rw, status.InternalError(err))
		return
	}
	rw.Header().Set("Content-Type", form.contentType())
	rw.Header().Set("Vary", "Accept")
	rw.Header().Set("Cache-Control", "public")
	rw.Header().Set("Etag", d.etag)
	if r.Header.Get("If-None-Match") == d.etag {
		rw.WriteHeader(http.StatusNotModified)
		return
	}
	rw.WriteHeader(http.StatusOK)
	_, _ = rw.Write(d.body)
}

// discoveryDoc is one encoded aggregated document.
type discoveryDoc struct {
	body []byte
	etag string
}

// discoveryCache keeps the aggregated documents for the CRDs last seen.
type discoveryCache struct {
	mu   sync.Mutex
	key  string
	docs map[discoveryDocKey]*discoveryDoc
}

type discoveryDocKey struct {
	core bool
	form discoveryForm
}

func (c *Cluster) discoveryDoc(ctx context.Context, core bool, form discoveryForm) (*discoveryDoc, error) {
	_, key, err := c.storedCRDs(ctx)
	if err != nil {
		return nil, err
	}
	dk := discoveryDocKey{core: core, form: form}
	c.discoveryCache.mu.Lock()
	defer c.discoveryCache.mu.Unlock()
	if c.discoveryCache.key != key || c.discoveryCache.docs == nil {
		c.discoveryCache.key, c.discoveryCache.docs = key, map[discoveryDocKey]*discoveryDoc{}
	}
	if d, ok := c.discoveryCache.docs[dk]; ok {
		return d, nil
	}
	list, err := c.aggregatedDiscoveryList(ctx, core)
	if err != nil {
		return nil, err
	}
	list.APIVersion = "apidiscovery.k8s.io/" + form.version
	b, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	d := &discoveryDoc{body: b, etag: fmt.Sprintf("%q", fmt.Sprintf("%X", sha512.Sum512(b)))}
	if form.proto {
		d.body = protobufEnvelope(list.APIVersion, list.Kind, encodeDiscoveryList(list))
	}
	c.discoveryCache.docs[dk] = d
	return d, nil
}

// protobufEnvelope wraps a message in the Kubernetes protobuf envelope (runtime.Unknown after the
// magic bytes), as internal/codec/protobuf writes objects.
func protobufEnvelope(apiVersion, kind string, raw []byte) []byte {
	var tm []byte
	tm = protowire.AppendTag(tm, 1, protowire.BytesType)
	tm = protowire.AppendString(tm, apiVersion)
	tm = protowire.AppendTag(tm, 2, protowire.BytesType)
	tm = protowire.AppendString(tm, kind)
	out := append([]byte(nil), protobuf.Magic...)
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendBytes(out, tm)
	out = protowire.AppendTag(out, 2, protowire.BytesType)
	out = protowire.AppendBytes(out, raw)
	out = protowire.AppendTag(out, 3, protowire.BytesType)
	out = protowire.AppendVarint(out, 0)
	out = protowire.AppendTag(out, 4, protowire.BytesType)
	return protowire.AppendVarint(out, 0)
}

// encodeDiscoveryList writes an APIGroupDiscoveryList message (k8s.io/api apidiscovery/v2 and
// v2beta1 share their field numbers), writing every string as the generated marshalers do
// (optional proto2 strings are always written).
func encodeDiscoveryList(list discoveryList) []byte {
	str := func(b []byte, num protowire.Number, s string) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendString(b, s)
	}
	msg := func(b []byte, num protowire.Number, body []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, body)
	}
	strs := func(b []byte, num protowire.Number, l []string) []byte {
		for _, s := range l {
			b = str(b, num, s)
		}
		return b
	}
	gvk := func(k discoveryKind) []byte {
		return str(str(str(nil, 1, k.Group), 2, k.Version), 3, k.Kind)
	}
	out := msg(nil, 1, nil) // ListMeta
	for _, g := range list.Items {
		group := msg(nil, 1, str(nil, 1, g.Metadata.Name)) // ObjectMeta: name
		for _, v := range g.Versions {
			ver := str(nil, 1, v.Version)
			for _, r := range v.Resources {
				res := str(nil, 1, r.Resource)
				res = msg(res, 2, gvk(r.ResponseKind))
				res = str(res, 3, r.Scope)
				res = str(res, 4, r.SingularResource)
				res = strs(res, 5, r.Verbs)
				res = strs(res, 6, r.ShortNames)
				res = strs(res, 7, r.Categories)
				for _, s := range r.Subresources {
					sub := str(nil, 1, s.Subresource)
					sub = msg(sub, 2, gvk(s.ResponseKind))
					sub = strs(sub, 4, s.Verbs)
					res = msg(res, 8, sub)
				}
				ver = msg(ver, 2, res)
			}
			ver = str(ver, 3, v.Freshness)
			group = msg(group, 2, ver)
		}
		out = msg(out, 2, group)
	}
	return out
}

// builtinGroupOrder is the order kube-apiserver 1.37 lists the built-in groups in, in /apis and
// its aggregated document: by their APIServices' groupPriorityMinimum, highest first (the
// priorities kube-apiserver registers its own group versions with). The order of
// testdata/cluster/discovery/apis.json, recorded from the real server (TestDiscoveryGroupOrder).
var builtinGroupOrder = []string{"apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io",
	"authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io", "policy",
	"rbac.authorization.k8s.io", "storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io",
	"scheduling.k8s.io", "coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "resource.k8s.io",
	"flowcontrol.apiserver.k8s.io", "storagemigration.k8s.io"}

// orderedGroups returns the named groups of groupVersions in the apiserver's order: the
// built-in groups by priority, then the others (CRDs' groups, whose APIServices all get
// groupPriorityMinimum 1000) by name.
func orderedGroups(groupVersions map[string][]string) []string {
	rank := make(map[string]int, len(builtinGroupOrder))
	for i, g := range builtinGroupOrder {
		rank[g] = i + 1
	}
	groups := make([]string, 0, len(groupVersions))
	for g := range groupVersions {
		if g != "" {
			groups = append(groups, g)
		}
	}
	sort.Slice(groups, func(i, j int) bool {
		ri, rj := rank[groups[i]], rank[groups[j]]
		switch {
		case ri != 0 && rj != 0:
			return ri < rj
		case ri != 0 || rj != 0:
			return ri != 0
		}
		return groups[i] < groups[j]
	})
	return groups
}

// discoveryNotAcceptable is the aggregator's 406 for /apis and a group's document, and the
// discovery handlers' for a media type they serve with parameters they do not take.
func discoveryNotAcceptable() *status.Error {
	return &status.Error{Code: http.StatusNotAcceptable, Reason: "NotAcceptable",
		Message: "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"}
}
