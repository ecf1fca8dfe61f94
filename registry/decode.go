package registry

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"sort"
	"strconv"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
	"github.com/writepath/writepath/schema/gotypes"
	"github.com/writepath/writepath/status"
)

// bodyFormat checks the Content-Type of a create or update body (NegotiateInputSerializer: an
// empty Content-Type is JSON) and returns the codec format.
func (h *handler) bodyFormat() (codec.Format, error) {
	ct := strings.TrimSpace(h.req.ContentType)
	if ct == "" {
		return codec.FormatJSON, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil {
		switch mt {
		case "application/json":
			return codec.FormatJSON, nil
		case "application/yaml":
			return codec.FormatYAML, nil
		}
	}
	accepted := []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}
	if h.ep.crd != nil {
		accepted = accepted[:2]
	}
	return 0, status.UnknownBodyFormat(accepted)
}

// limitBody is limitedReadBody: a body over MaxRequestBytes is a 413.
func limitBody(body []byte) error {
	if len(body) > MaxRequestBytes {
		return status.RequestEntityTooLarge(fmt.Sprintf("limit is %d", MaxRequestBytes))
	}
	return nil
}

// decoded is a request body read as the endpoint's serializer reads it.
type decoded struct {
	obj        map[string]any
	duplicates []string
}

// parseErrorText is what the apiserver's meta factory says of a body it cannot parse: the JSON
// decoder's own message ("invalid character 'x' looking for beginning of object key string"),
// without the line the codec adds for the CLI (recorded from kube-apiserver 1.37.2:
// testdata/schema/realcluster/deep, TestBodyParseErrorsAsRecorded).
func parseErrorText(err error) string {
	var ce *codec.Error
	if errors.As(err, &ce) && ce.Err != nil && (ce.Kind == codec.KindSyntax || ce.Kind == codec.KindTooDeep) {
		return ce.Err.Error()
	}
	return err.Error()
}

// readBody decodes the body of a create or update (k8s.io/apiserver handlers/create.go and
// update.go: limitedReadBody, the serializer's Decode with the endpoint's kind as default, the
// API version check). Duplicate fields are kept (last wins) and reported for field validation.
//
// level is the request's field validation: a custom resource body of a version its CRD does not
// have is decoded with no schema, so under Warn each of its top-level fields but apiVersion, kind
// and metadata is an unknown field warning before the version mismatch's 400 (recorded:
// crd-widget/create-wrong-version).
func (h *handler) readBody(format codec.Format, into schema.GroupVersionKind, level schema.FieldValidation) (decoded, error) {
	if err := limitBody(h.req.Body); err != nil {
		return decoded{}, err
	}
	doc, err := codec.Options{AllowDuplicates: true, Format: format, MaxBytes: -1}.Decode(h.req.Body)
	if err != nil {
		return decoded{}, status.BadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): couldn't get version/kind; json parse error: %s (%s)", into.Kind, parseErrorText(err), summarize(h.req.Body)))
	}
	if doc.Value == nil && format == codec.FormatJSON {
		// encoding/json decodes null into a struct as a no-op: the meta factory finds no
		// apiVersion or kind (the endpoint's are defaulted) and the object is empty.
		doc.Value = map[string]any{}
	}
	obj, ok := doc.Value.(map[string]any)
	if !ok {
		return decoded{}, status.BadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): couldn't get version/kind; json parse error: json: cannot unmarshal %s into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" } (%s)", into.Kind, jsonTypeName(doc.Value), summarize(h.req.Body)))
	}
	// The serializer's meta factory reads apiVersion and kind as strings first.
	for _, k := range []string{"apiVersion", "kind"} {
		if v, ok := obj[k]; ok && v != nil {
			if _, isString := v.(string); !isString {
				return decoded{}, status.BadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): couldn't get version/kind; json parse error: json: cannot unmarshal %s into Go struct field .%s of type string (%s)", into.Kind, jsonTypeName(v), k, summarize(h.req.Body)))
			}
		}
	}
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	// Defaults fill what the body leaves out (gvkWithDefaults).
	c := shallow(obj)
	if kind == "" {
		c["kind"] = into.Kind
		kind = into.Kind
	}
	if av == "" {
		c["apiVersion"] = into.GroupVersion().String()
		av = into.GroupVersion().String()
	}
	gv, err := schema.ParseAPIVersion(av)
	if err != nil {
		return decoded{}, status.BadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v", into.Kind, err))
	}
	if gv.Group != into.Group || gv.Version != into.Version {
		if h.ep != nil && h.ep.crd != nil && gv.Group == into.Group && kind == into.Kind && level != schema.FieldValidationIgnore {
			// A body of another version of the custom resource is decoded by that version's
			// schema (a version not served has none: every field but apiVersion, kind and
			// metadata is unknown) before the version check refuses it; its unknown and
			// duplicate fields are reported first, as the field validation level says.
			var unknown []string
			if v := h.ep.crd.Version(gv.Version); v != nil && v.Served {
				if _, u, err := v.Coerce(obj, true); err == nil {
					unknown = u
				}
			} else {
				for k := range obj {
					if k != "apiVersion" && k != "kind" && k != "metadata" {
						unknown = append(unknown, k)
					}
				}
				sort.Strings(unknown)
			}
			w, ferr := schema.FieldValidationFindings(level, doc.Warnings, unknown)
			if ferr != nil {
				return decoded{}, strictError(kind, gv.Version, ferr, bodyDecodeError(schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}))
			}
			h.warnings = append(h.warnings, w...)
		}
		if h.ep == nil || h.ep.crd == nil {
			// A built-in endpoint decodes through the scheme: a kind the scheme does not know
			// in the body's version is refused by the decoder; one of another group is
			// decoded and then fails the conversion to the endpoint's internal type. Only one
			// of the endpoint's group, at another version, reaches the version check.
			body := schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}
			if k, err := schema.Builtin(body); err != nil || k == nil {
				return decoded{}, status.BadRequest(notRegistered(kind, gv.Version, into.Kind, av))
			} else if gv.Group != into.Group {
				return decoded{}, status.BadRequest(unknownConversion(kind, gv.Version, into))
			}
		}
		return decoded{}, status.BadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", av, into.GroupVersion().String()))
	}
	if kind != into.Kind && h.ep.crd == nil {
		if k, err := schema.Builtin(schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}); err == nil && k != nil {
			// A kind the scheme knows in this version: the decoder converts it to the internal
			// type of the endpoint's kind, which no conversion does.
			return decoded{}, status.BadRequest(unknownConversion(kind, gv.Version, into))
		}
		return decoded{}, status.BadRequest(notRegistered(kind, gv.Version, into.Kind, av))
	}
	if _, ok := metaOf(c)["managedFields"]; ok {
		h.clientManagedFields = true
	}
	return decoded{obj: c, duplicates: doc.Warnings}, nil
}

// typed is the decode-time treatment of an object of the endpoint's kind: for a built-in kind the
// typed round trip (k8s.io/api's Go type: unknown fields dropped, values the Go type refuses
// answered in the decoder's words) with the scheme's defaulting; for a custom resource the
// structural schema's coercion, pruning and defaulting. The unknown fields found are reported
// through the field validation level (Strict: 400; Warn: warnings). decodeErr builds the error of
// a value the Go type refuses (400 for a body, 422 for a patched object).
func (h *handler) typed(obj map[string]any, duplicates []string, level schema.FieldValidation, decodeErr func(msg string) error) (map[string]any, error) {
	ep := h.ep
	gvk := ep.gvk
	if ep.crd != nil {
		v := ep.version
		if k, _ := obj["kind"].(string); k != ep.crd.Names.Kind {
			// The custom resource handler's coercer, pruner and defaulter act on the CRD's
			// kind only; validation then refuses the kind (ValidateTypeMeta).
			return obj, nil
		}
		out, unknown, err := v.Coerce(obj, level != schema.FieldValidationIgnore)
		if err != nil {
			return nil, err
		}
		warnings, ferr := schema.FieldValidationFindings(level, duplicates, unknown)
		if ferr != nil {
			k := ep.crd.Names.Kind
			return nil, strictError(k, v.Name, ferr, decodeErr)
		}
		h.warnings = append(h.warnings, warnings...)
		if v.Structural != nil {
			out = schema.Default(out, v.Structural).(map[string]any)
		}
		return out, nil
	}
	k := ep.builtin
	var unknown []string
	if level != schema.FieldValidationIgnore {
		if t, err := k.SMDType(); err == nil && t.IsValid() {
			unknown = schema.UnknownFields(t, obj)
		}
		if len(unknown) > 1 && h.document != nil {
			unknown = documentOrder(h.document, unknown)
		}
	}
	h.noteInitResources(obj)
	out, err := defaults.Builtin(gvk, obj, defaults.Options{Now: h.req.Now, KeepEmptyBytes: ep.keepsEmptyBytes()})
	if err != nil {
		var fe *field.Error
		if errors.As(err, &fe) {
			msg, ok := gotypes.DecodeError(gvk, fe.Field, fe.BadValue)
			if !ok {
				msg = fe.Error()
			}
			return nil, decodeErr(msg)
		}
		var nf *schema.NotFoundError
		if errors.As(err, &nf) {
			// A served kind without a Go type in the catalogue: taken as decoded.
			out = obj
		} else {
			return nil, decodeErr(err.Error())
		}
	}
	if h.document != nil {
		if msg, refused := literalNumberError(gvk, h.document); refused {
			return nil, decodeErr(msg)
		}
	}
	warnings, ferr := schema.FieldValidationFindings(level, duplicates, unknown)
	if ferr != nil {
		return nil, strictError(gvk.Kind, gvk.Version, ferr, decodeErr)
	}
	h.warnings = append(h.warnings, warnings...)
	return out, nil
}

// strictError rewords FieldValidationFindings' 400 for the caller's context.
func strictError(kind, version string, ferr error, decodeErr func(string) error) error {
	var st *status.Error
	msg := ferr.Error()
	if errors.As(ferr, &st) {
		msg = st.Message
	}
	return decodeErr(msg)
}

// bodyDecodeError is the 400 of a body the Go type refuses (transformDecodeError).
func bodyDecodeError(gvk schema.GroupVersionKind) func(string) error {
	return func(msg string) error {
		return status.BadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", gvk.Kind, gvk.Version, gvk.Kind, msg))
	}
}

// summarize is the handler's summary of an undecodable body (its first 30 bytes).
// summarize is the handlers' summarizeData(body, 30) in transformDecodeError: "<empty>", an
// object's first 30 bytes as text, anything else's first 30 bytes in hex.
func summarize(data []byte) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > 30 {
			return string(data[:30]) + " ..."
		}
		return string(data)
	}
	if len(data) > 30 {
		return hex.EncodeToString(data[:30]) + " ..."
	}
	return hex.EncodeToString(data)
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "number"
}

// shallow copies obj's top level.
func shallow(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj)+1)
	for k, v := range obj {
		out[k] = v
	}
	return out
}

// documentOrder orders field paths ("spec.template.spec.containers[0].foo") as their keys first
// appear in the JSON document doc, which is the order the strict decoder meets and reports them;
// a path not found keeps its place after the found ones. One pass over doc (stopping once every
// path is placed); doc has been decoded already, so its depth is bounded.
func documentOrder(doc []byte, paths []string) []string {
	at := make(map[string]int, len(paths))
	for _, p := range paths {
		at[p] = -1
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	found, pos := 0, 0
	errDone := errors.New("done")
	var value func(path string) error
	value = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				p := k
				if path != "" {
					p = path + "." + k
				}
				pos++
				if v, ok := at[p]; ok && v < 0 {
					at[p] = pos
					if found++; found == len(at) {
						return errDone
					}
				}
				if err := value(p); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if err := value(path + "[" + strconv.Itoa(i) + "]"); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	_ = value("")
	out := append([]string(nil), paths...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := at[out[i]], at[out[j]]
		if a < 0 || b < 0 {
			return a >= 0 && b < 0
		}
		return a < b
	})
	return out
}

// internalPackage is the Go package name of a built-in group's internal types
// (k8s.io/kubernetes pkg/apis/<name>), as the scheme's conversion errors print them.
// schemeName is the name kube-apiserver 1.37's schemes give themselves (runtime.NewScheme names
// a scheme by its call site, and the recorded one is the function's own line), which the
// decoder's "not registered" error quotes.
const schemeName = "pkg/runtime/scheme.go:111"

// notRegistered is the create and update handlers' 400 for a body whose kind the scheme does not
// know in its apiVersion (runtime.NewNotRegisteredErrForKind, wrapped as the handler wraps a
// decode error; recorded: errors/err-bad-request/other-group).
func notRegistered(kind, version, intoKind, apiVersion string) string {
	return fmt.Sprintf("%s in version %q cannot be handled as a %s: no kind %q is registered for version %q in scheme %q", kind, version, intoKind, kind, apiVersion, schemeName)
}

// unknownConversion is the handlers' 400 for a body of a kind the scheme knows that does not
// convert to the endpoint's internal type.
func unknownConversion(kind, version string, into schema.GroupVersionKind) string {
	return fmt.Sprintf("%s in version %q cannot be handled as a %s: converting (%s.%s) to (%s.%s): unknown conversion",
		kind, version, into.Kind, version, kind, internalPackage(into.Group), into.Kind)
}

func internalPackage(group string) string {
	switch group {
	case "":
		return "core"
	case "rbac.authorization.k8s.io":
		return "rbac"
	case "internal.apiserver.k8s.io":
		return "apiserverinternal"
	}
	if i := strings.IndexByte(group, '.'); i > 0 {
		return group[:i]
	}
	return group
}
