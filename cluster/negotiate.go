package cluster

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/codec/protobuf"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/status"
)

// Output negotiation of resource requests, as the apiserver's NegotiateOutputMediaType does it
// (k8s.io/apiserver endpoints/handlers/negotiation with the RequestScope's restrictions): the
// Accept clauses are parsed as github.com/munnerz/goautoneg parses them (split on "," and ";",
// no quoting; q defaults to 1 and a clause of q=0 still counts), ordered by q, then concrete
// types before wildcards, and the first clause that one of the endpoint's serializers accepts
// with its parameters wins.
//
// The serializers are JSON, YAML and protobuf for every resource (a custom resource's
// negotiated serializer lists protobuf too). The parameters as, g and v ask for a
// transformation, which the endpoint allows when g/v is meta.k8s.io/v1 or v1beta1 and as is
// Table (JSON or YAML only) or PartialObjectMetadata(List) (any serializer). Without a
// transformation a custom resource is served in JSON or YAML only (its StandardSerializers).
// stream must be "watch" on a serializer that streams (not YAML); sv must be the meta version
// "v1". Other parameters are ignored.

// output is a negotiated output: the serializer's media type and the transformation.
type output struct {
	mediaType string // jsonType, yamlType or protobufType
	// as is "", "Table", "PartialObjectMetadata" or "PartialObjectMetadataList"; version is its
	// meta.k8s.io version.
	as, version string
}

const yamlType = "application/yaml"

// unacceptable is an Accept value no serializer takes: the request is handed to registry with
// it when negotiation fails, so that registry answers the apiserver's 406 (or the 404 of a
// resource that is not served, which the apiserver checks first).
const unacceptable = "application/x-writepath-unacceptable"

type mediaRange struct {
	typ, subtype string
	q            float64
	params       map[string]string
}

// parseMediaRanges is goautoneg.ParseAccept: at most maxAcceptClauses clauses are read. It is
// also the parser of aggregated discovery's and OpenAPI's negotiation (kube-openapi and the
// discovery handlers use goautoneg too).
func parseMediaRanges(header string) []mediaRange {
	var out []mediaRange
	for i, part := range strings.Split(header, ",") {
		if i >= maxAcceptClauses {
			break
		}
		part = strings.Trim(part, " ")
		fields := strings.Split(part, ";")
		c := mediaRange{q: 1}
		typ, sub, hasSub := strings.Cut(fields[0], "/")
		c.typ = strings.Trim(typ, " ")
		switch {
		case !hasSub:
			if c.typ != "*" {
				continue
			}
			c.subtype = "*"
		case strings.Contains(sub, "/"):
			continue
		default:
			c.subtype = strings.Trim(sub, " ")
		}
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, "=")
			if !ok || strings.Contains(v, "=") {
				continue
			}
			k = strings.Trim(k, " ")
			if k == "q" {
				q, _ := strconv.ParseFloat(v, 32)
				c.q = q
				continue
			}
			if c.params == nil {
				c.params = map[string]string{}
			}
			c.params[k] = strings.Trim(v, " ")
		}
		out = append(out, c)
	}
	// goautoneg sorts with sort.Sort, an insertion sort at these lengths: stable.
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.q > b.q:
			return true
		case a.typ != "*" && b.typ == "*":
			return true
		case a.subtype != "*" && b.subtype == "*":
			return true
		}
		return false
	})
	return out
}

// negotiateOutput picks the output of a resource request from its Accept header; custom says
// the resource is a custom resource. ok is false when nothing is acceptable (406).
func negotiateOutput(accept string, custom bool) (output, bool) {
	return negotiate(accept, []string{jsonType, yamlType, protobufType}, custom, false)
}

// negotiateWatch is negotiateOutput for a watch: only serializers that stream (JSON, protobuf).
func negotiateWatch(accept string, custom bool) (output, bool) {
	return negotiate(accept, []string{jsonType, protobufType}, custom, false)
}

// negotiate runs the negotiation over serializers; plain is the default endpoint
// restrictions the apiserver encodes an error with (no transformation, no sv).
func negotiate(accept string, serializers []string, custom, plain bool) (output, bool) {
	if accept == "" {
		return output{mediaType: serializers[0]}, true
	}
	for _, c := range parseMediaRanges(accept) {
		for _, s := range serializers {
			typ, sub, _ := strings.Cut(s, "/")
			if !(c.typ == typ && (c.subtype == sub || c.subtype == "*") || c.typ == "*" && c.subtype == "*") {
				continue
			}
			if o, ok := acceptOutput(c.params, s, custom, plain); ok {
				return o, true
			}
		}
	}
	return output{}, false
}

func acceptOutput(params map[string]string, mediaType string, custom, plain bool) (output, bool) {
	o := output{mediaType: mediaType}
	var convert bool
	var group string
	for k, v := range params {
		switch k {
		case "as":
			convert, o.as = true, v
		case "g":
			convert, group = true, v
		case "v":
			convert, o.version = true, v
		case "stream":
			if v != "" && (mediaType == yamlType || v != "watch") {
				return output{}, false
			}
		case "sv":
			if v != "" && (plain || v != "v1") {
				return output{}, false
			}
		}
	}
	if plain {
		return o, !convert
	}
	if !convert {
		return o, !custom || mediaType != protobufType
	}
	if group != "meta.k8s.io" || (o.version != "v1" && o.version != "v1beta1") {
		return output{}, false
	}
	switch o.as {
	case "Table":
		return o, mediaType == jsonType || mediaType == yamlType
	case "PartialObjectMetadata", "PartialObjectMetadataList":
		return o, true
	}
	return output{}, false
}

// accept is the Accept header that asks registry for o (without a Table transformation, which
// this package does).
func (o output) accept() string {
	if o.as == "" || o.as == "Table" {
		if o.mediaType == protobufType {
			return protobufType
		}
		if o.as == "Table" {
			return jsonType
		}
		return o.mediaType
	}
	mt := o.mediaType
	if mt == protobufType {
		mt = jsonType // transcoded below (protobufWatchWriter, bufferedResponse)
	}
	return mt + ";as=" + o.as + ";g=meta.k8s.io;v=" + o.version
}

// Negotiation failures. The apiserver refuses an Accept in two places: go-restful, before the
// handler, when no media type of Accept (parameters cut off) is one its route produces
// (built-in resources only: "406: Not Acceptable" and the route's representations, details
// {}); then the handler's negotiation (NewNotAcceptableError: "only the following media types
// are accepted: ...", the serializers' media types, or their stream forms for a watch). That
// Status is written in the first plain media type of Accept the default restrictions take, or
// as indented JSON when there is none (WriteObjectNegotiated's WriteRawJSON).

// restfulAccepts is go-restful's Route.matchesAccept over the media types a route produces.
func restfulAccepts(accept string, produces []string) bool {
	if accept == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(part, ";")
		mt = strings.Trim(mt, " ")
		if mt == "*/*" {
			return true
		}
		for _, p := range produces {
			if p == mt {
				return true
			}
		}
	}
	return false
}

// writeNotAcceptable answers a resource request whose Accept nothing serves.
func writeNotAcceptable(rw http.ResponseWriter, r *http.Request, target registry.Target, custom, watch bool) {
	serializers := []string{jsonType, yamlType, protobufType}
	produces := serializers
	if r.Method == http.MethodGet && target.Name == "" {
		produces = append(produces, jsonType+";stream=watch", protobufType+";stream=watch")
	}
	accept := r.Header.Get("Accept")
	if !custom && !restfulAccepts(accept, produces) {
		st := &status.Error{Code: http.StatusNotAcceptable, Reason: status.ReasonNotAcceptable, Details: &status.Details{},
			Message: "406: Not Acceptable\n\nAvailable representations: " + strings.Join(produces, ", ")}
		writeIndentedStatus(rw, st)
		return
	}
	listed := serializers
	if _, ok := negotiateOutput(accept, custom); ok && watch {
		// ListResource negotiates the list's output first, then the watch stream's.
		listed = []string{jsonType + ";stream=watch", protobufType + ";stream=watch"}
	}
	st := &status.Error{Code: http.StatusNotAcceptable, Reason: status.ReasonNotAcceptable,
		Message: "only the following media types are accepted: " + strings.Join(listed, ", ")}
	o, ok := negotiate(accept, serializers, custom, true)
	if !ok {
		writeIndentedStatus(rw, st)
		return
	}
	body, err := json.Marshal(st)
	if err == nil && o.mediaType != jsonType {
		var obj map[string]any
		if obj, err = codec.DecodeObject(body); err == nil {
			if o.mediaType == yamlType {
				body, err = codec.EncodeYAML(obj)
			} else {
				body, err = protobuf.Encode(obj)
			}
		}
	}
	if err != nil {
		writeIndentedStatus(rw, st)
		return
	}
	rw.Header().Set("Content-Type", o.mediaType)
	rw.WriteHeader(http.StatusNotAcceptable)
	_, _ = rw.Write(body)
}

func writeIndentedStatus(rw http.ResponseWriter, st *status.Error) {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		writeStatus(rw, st)
		return
	}
	rw.Header().Set("Content-Type", jsonType)
	rw.WriteHeader(int(st.Code))
	_, _ = rw.Write(b)
}
