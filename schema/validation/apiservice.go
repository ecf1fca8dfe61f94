package validation

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// APIService (apiregistration.k8s.io, kube-aggregator) as ValidateAPIService(Update,
// StatusUpdate) with its strategy: apimachinery's metadata rules (ValidateObjectMetaDeclaratively,
// whose declarative ObjectMeta rules are alpha, so only the hand-written ones, each message once,
// without core's finalizer-name check), the name a path segment equal to spec.version+"."+spec.group, the group
// (empty only for v1) and version, the priorities' ranges; a local APIService (no service) with
// no caBundle or insecureSkipTLSVerify, a service's namespace, name and port. Update validates
// the whole object again after the metadata update rules; /status the conditions' statuses. A
// local APIService is created Available (PrepareForCreate; see prepareAPIServiceCreate).

func validateAPIService(obj map[string]any, _ Options) field.ErrorList {
	spec := mapOf(obj["spec"])
	group, version := str(spec, "group"), str(spec, "version")
	required := version + "." + group
	errs := objectMeta(obj, schema.ObjectMetaOptions{NameRule: func(name string, _ bool) []string {
		if msgs := validation.IsValidPathSegmentName(name); len(msgs) > 0 {
			return msgs
		}
		if name != required {
			return []string{fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", required)}
		}
		return nil
	}}).Filter() // ValidateObjectMetaDeclaratively's merge keeps each message once
	p := field.NewPath("spec")
	if group == "" && version != "v1" {
		errs = append(errs, field.Required(p.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	}
	if group != "" {
		errs = append(errs, invalids(p.Child("group"), group, validation.IsDNS1123Subdomain(group))...)
	}
	errs = append(errs, invalids(p.Child("version"), version, validation.IsDNS1035Label(version))...)
	if g, _ := integer(spec, "groupPriorityMinimum"); g <= 0 || g > 20000 {
		errs = append(errs, field.Invalid(p.Child("groupPriorityMinimum"), g, "must be positive and less than 20000"))
	}
	if v, _ := integer(spec, "versionPriority"); v <= 0 || v > 1000 {
		errs = append(errs, field.Invalid(p.Child("versionPriority"), v, "must be positive and less than 1000"))
	}
	caBundle := 0
	if b, err := base64.StdEncoding.DecodeString(str(spec, "caBundle")); err == nil {
		caBundle = len(b)
	}
	insecure, _ := boolean(spec, "insecureSkipTLSVerify")
	svc, ok := spec["service"].(map[string]any)
	if !ok {
		if caBundle != 0 {
			errs = append(errs, field.Invalid(p.Child("caBundle"), fmt.Sprintf("%d bytes", caBundle), "local APIServices may not have a caBundle"))
		}
		if insecure {
			errs = append(errs, field.Invalid(p.Child("insecureSkipTLSVerify"), insecure, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	sp := p.Child("service")
	if str(svc, "namespace") == "" {
		errs = append(errs, field.Required(sp.Child("namespace"), ""))
	}
	if str(svc, "name") == "" {
		errs = append(errs, field.Required(sp.Child("name"), ""))
	}
	port, _ := integer(svc, "port")
	if msgs := validation.IsValidPortNum(port); msgs != nil {
		errs = append(errs, field.Invalid(sp.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if insecure && caBundle > 0 {
		errs = append(errs, field.Invalid(p.Child("insecureSkipTLSVerify"), insecure, "may not be true if caBundle is present"))
	}
	return errs
}

func validateAPIServiceUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	errs := objectMetaUpdate(obj, old, schema.ObjectMetaOptions{ResourceVersionSet: true}).Filter()
	switch opts.Subresource {
	case "status":
		for i, c := range listOf(mapOf(obj["status"])["conditions"]) {
			switch s := str(mapOf(c), "status"); s {
			case "True", "False", "Unknown":
			default:
				errs = append(errs, field.NotSupported(field.NewPath("status", "conditions").Index(i).Child("status"), s, []string{"True", "False", "Unknown"}))
			}
		}
		return errs
	case "":
		// No declarative validation merges the lists: a metadata error both report is
		// listed twice (and the registry's common ObjectMeta validation lists it before).
		return append(errs, validateAPIService(obj, opts)...)
	}
	return nil
}

// prepareAPIServiceCreate is the strategy's PrepareForCreate beyond the status reset: a local
// APIService (no spec.service) is created with its Available condition, as kube-aggregator marks
// local API services available at once.
func prepareAPIServiceCreate(obj map[string]any, opts Options) map[string]any {
	if _, remote := mapOf(obj["spec"])["service"].(map[string]any); remote {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	var at any // metav1.Now(), the request's time; a zero time is written null
	if !opts.Now.IsZero() {
		at = opts.Now.UTC().Format(time.RFC3339)
	}
	out["status"] = map[string]any{"conditions": []any{map[string]any{
		"type": "Available", "status": "True", "reason": "Local", "message": "Local APIServices are always available",
		"lastTransitionTime": at,
	}}}
	return out
}
