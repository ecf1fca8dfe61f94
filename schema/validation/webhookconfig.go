package validation

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// ValidatingWebhookConfiguration and MutatingWebhookConfiguration (admissionregistration.k8s.io/v1):
// ValidateValidatingWebhookConfiguration(Update) and ValidateMutatingWebhookConfiguration(Update).
// An update relaxes what the stored configuration already breaks (side effects, review
// versions, unique names, selector label values) and does not recompile unchanged match
// conditions. Warnings (ExcludeAdmissionWebhookVirtualResources, beta and on in 1.37): a rule
// naming a resource admission webhooks never see; on update, a name with the static suffix.

func validateVWC(obj map[string]any, opts Options) field.ErrorList {
	return distinct(append(webhookConfiguration(obj, false, webhookCreateOptions(opts)), staticSuffix(obj)...))
}

func validateMWC(obj map[string]any, opts Options) field.ErrorList {
	return distinct(append(webhookConfiguration(obj, true, webhookCreateOptions(opts)), staticSuffix(obj)...))
}

func validateVWCUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	return distinct(webhookConfiguration(obj, false, webhookUpdateOptions(obj, old, opts)))
}

func validateMWCUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	return distinct(webhookConfiguration(obj, true, webhookUpdateOptions(obj, old, opts)))
}

func webhookCreateOptions(opts Options) policyOptions {
	return policyOptions{requireNoSideEffects: true, requireRecognizedReviewVersion: true, requireUniqueNames: true,
		pre: newPolicyExprs(), compiler: opts}
}

// webhookUpdateOptions are the update's options, from the stored webhooks.
func webhookUpdateOptions(obj, old map[string]any, opts Options) policyOptions {
	hooks, oldHooks := listOf(obj["webhooks"]), listOf(old["webhooks"])
	o := policyOptions{requireNoSideEffects: true, requireRecognizedReviewVersion: true, requireUniqueNames: true,
		pre: newPolicyExprs(), compiler: opts}
	o.ignoreMatchConditions = len(hooks) == len(oldHooks)
	names := map[string]bool{}
	for i, h := range oldHooks {
		hm := mapOf(h)
		if o.ignoreMatchConditions && !semanticEqual(emptyToNilList(mapOf(hooks[i])["matchConditions"]), emptyToNilList(hm["matchConditions"])) {
			o.ignoreMatchConditions = false
		}
		if se, ok := hm["sideEffects"].(string); !ok || se != "None" && se != "NoneOnDryRun" {
			o.requireNoSideEffects = false
		}
		if vs := stringList(hm["admissionReviewVersions"]); len(vs) > 0 && !contains(vs, "v1") && !contains(vs, "v1beta1") {
			o.requireRecognizedReviewVersion = false
		}
		name := str(hm, "name")
		if names[name] {
			o.requireUniqueNames = false
		}
		names[name] = true
		for _, k := range []string{"namespaceSelector", "objectSelector"} {
			if sel, ok := hm[k].(map[string]any); ok && len(ValidateLabelSelector(field.NewPath(k), sel, LabelSelectorOptions{})) > 0 {
				o.allowInvalidLabelValue = true
			}
		}
		for _, mc := range listOf(hm["matchConditions"]) {
			o.pre.matchConditions[str(mapOf(mc), "expression")] = true
		}
	}
	return o
}

// webhookConfiguration is validateValidatingWebhookConfiguration (mutating false) and
// validateMutatingWebhookConfiguration: metadata, then each webhook, its review versions and
// the uniqueness of its name.
func webhookConfiguration(obj map[string]any, mutating bool, o policyOptions) field.ErrorList {
	errs := objectMeta(obj, schema.ObjectMetaOptions{})
	names := map[string]bool{}
	for i, h := range listOf(obj["webhooks"]) {
		hm := mapOf(h)
		p := field.NewPath("webhooks").Index(i)
		errs = append(errs, webhook(p, hm, mutating, o)...)
		errs = append(errs, admissionReviewVersions(p.Child("admissionReviewVersions"), stringList(hm["admissionReviewVersions"]), o.requireRecognizedReviewVersion)...)
		if name := str(hm, "name"); o.requireUniqueNames && name != "" {
			if names[name] {
				errs = append(errs, field.Duplicate(p.Child("name"), name))
			}
			names[name] = true
		}
	}
	return errs
}

// webhook is validateValidatingWebhook and validateMutatingWebhook.
func webhook(p field.Path, h map[string]any, mutating bool, o policyOptions) field.ErrorList {
	errs := fullyQualifiedName(p.Child("name"), str(h, "name"))
	for i, r := range listOf(h["rules"]) {
		errs = append(errs, ruleWithOperations(p.Child("rules").Index(i), mapOf(r))...)
	}
	if fp, ok := h["failurePolicy"].(string); ok && fp != "Fail" && fp != "Ignore" {
		errs = append(errs, field.NotSupported(p.Child("failurePolicy"), fp, []string{"Fail", "Ignore"}))
	}
	if mp, ok := h["matchPolicy"].(string); ok && mp != "Exact" && mp != "Equivalent" {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), mp, []string{"Equivalent", "Exact"}))
	}
	allowed := []string{"None", "NoneOnDryRun", "Some", "Unknown"}
	if o.requireNoSideEffects {
		allowed = []string{"None", "NoneOnDryRun"}
	}
	if se, ok := h["sideEffects"].(string); !ok {
		errs = append(errs, field.Required(p.Child("sideEffects"), "must specify one of "+strings.Join(allowed, ", ")))
	} else if !contains(allowed, se) {
		errs = append(errs, field.NotSupported(p.Child("sideEffects"), se, allowed))
	}
	if t, ok := integer(h, "timeoutSeconds"); ok && (t > 30 || t < 1) {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), t, "the timeout value must be between 1 and 30 seconds"))
	}
	selOpts := LabelSelectorOptions{AllowInvalidLabelValue: o.allowInvalidLabelValue}
	for _, k := range []string{"namespaceSelector", "objectSelector"} {
		if sel, ok := h[k].(map[string]any); ok {
			errs = append(errs, ValidateLabelSelector(p.Child(k), sel, selOpts)...)
		}
	}
	if rp, ok := h["reinvocationPolicy"].(string); mutating && ok && rp != "Never" && rp != "IfNeeded" {
		errs = append(errs, field.NotSupported(p.Child("reinvocationPolicy"), rp, []string{"IfNeeded", "Never"}))
	}
	cc := mapOf(h["clientConfig"])
	u, hasURL := cc["url"].(string)
	svc, hasSvc := cc["service"].(map[string]any)
	cp := p.Child("clientConfig")
	switch {
	case hasURL == hasSvc:
		errs = append(errs, field.Required(cp, "exactly one of url or service is required"))
	case hasURL:
		errs = append(errs, WebhookURL(cp.Child("url"), u, true)...)
	default:
		port, _ := integer(svc, "port")
		path, hasPath := svc["path"].(string)
		// The apiserver passes the service's name as the namespace and its namespace as the
		// name: an empty name is reported at service.namespace, and the other way round.
		errs = append(errs, WebhookService(cp.Child("service"), str(svc, "name"), str(svc, "namespace"), path, hasPath, port)...)
	}
	if !o.ignoreMatchConditions {
		errs = append(errs, matchConditions(p.Child("matchConditions"), listOf(h["matchConditions"]), o)...)
	}
	return errs
}

// fullyQualifiedName is apimachinery's IsFullyQualifiedName: a DNS subdomain of at least three
// labels.
func fullyQualifiedName(p field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if ms := ivalidation.IsDNS1123Subdomain(name); len(ms) > 0 {
		return field.ErrorList{field.Invalid(p, name, strings.Join(ms, ","))}
	}
	if len(strings.Split(name, ".")) < 3 {
		return field.ErrorList{field.Invalid(p, name, "should be a domain with at least three segments separated by dots")}
	}
	return nil
}

// admissionReviewVersions is validateAdmissionReviewVersions.
func admissionReviewVersions(p field.Path, versions []string, requireRecognized bool) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "must specify one of v1, v1beta1")}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	accepted := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		errs = append(errs, invalids(p.Index(i), v, ivalidation.IsDNS1035Label(v))...)
		if v == "v1" || v == "v1beta1" {
			accepted = true
		}
	}
	if requireRecognized && !accepted {
		errs = append(errs, field.Invalid(p, versions, "must include at least one of v1, v1beta1"))
	}
	return errs
}

// WebhookURL is apiserver's webhook.ValidateWebhookURL: a URL with a host, no user
// information, fragment or query, https when forceHTTPS.
func WebhookURL(p field.Path, raw string, forceHTTPS bool) field.ErrorList {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Required(p, "url must be a valid URL: "+err.Error()+form)}
	}
	var errs field.ErrorList
	if forceHTTPS && u.Scheme != "https" {
		errs = append(errs, field.Invalid(p, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		errs = append(errs, field.Invalid(p, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// WebhookService is apiserver's webhook.ValidateWebhookService: name, namespace, a port, and a
// path (when set) of DNS subdomain segments.
func WebhookService(p field.Path, namespace, name, path string, hasPath bool, port int64) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	if namespace == "" {
		errs = append(errs, field.Required(p.Child("namespace"), ""))
	}
	if port < 1 || port > 65535 {
		errs = append(errs, field.Invalid(p.Child("port"), port, "port is not valid: must be between 1 and 65535, inclusive"))
	}
	if !hasPath || path == "/" || path == "" {
		return errs
	}
	if path == "//" {
		return append(errs, field.Invalid(p.Child("path"), path, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(path, "/") {
		errs = append(errs, field.Invalid(p.Child("path"), path, "must start with a '/'"))
	}
	for i, step := range strings.Split(strings.TrimSuffix(path[1:], "/"), "/") {
		if step == "" {
			errs = append(errs, field.Invalid(p.Child("path"), path, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, m := range ivalidation.IsDNS1123Subdomain(step) {
			errs = append(errs, field.Invalid(p.Child("path"), path, fmt.Sprintf("segment[%d]: %v", i, m)))
		}
	}
	return errs
}

// excludedFromWebhooks are the resources admission webhooks never see (kubeapiserver's
// admission exclusion list).
var excludedFromWebhooks = map[[2]string]bool{
	{"authentication.k8s.io", "selfsubjectreviews"}:       true,
	{"authentication.k8s.io", "tokenreviews"}:             true,
	{"authorization.k8s.io", "localsubjectaccessreviews"}: true,
	{"authorization.k8s.io", "selfsubjectaccessreviews"}:  true,
	{"authorization.k8s.io", "selfsubjectrulesreviews"}:   true,
	{"authorization.k8s.io", "subjectaccessreviews"}:      true,
}

// webhookConfigurationWarnings is WarningsOnCreate (old nil) and WarningsOnUpdate: the static
// suffix on update, then each rule that names an excluded resource without a wildcard.
func webhookConfigurationWarnings(obj, old map[string]any, opts Options) []string {
	if opts.Subresource != "" {
		return nil
	}
	var out []string
	if old != nil {
		out = staticSuffixWarnings(obj)
	}
	for i, h := range listOf(obj["webhooks"]) {
		rp := field.NewPath("webhooks").Index(i).Child("rules")
		for j, r := range listOf(mapOf(h)["rules"]) {
			rm := mapOf(r)
			groups, resources := stringList(rm["apiGroups"]), stringList(rm["resources"])
			if contains(groups, "*") || contains(resources, "*") {
				continue
			}
			seen := map[[2]string]bool{}
			for _, g := range groups {
				for _, res := range resources {
					gr := [2]string{g, res}
					if excludedFromWebhooks[gr] && !seen[gr] {
						seen[gr] = true
						out = append(out, fmt.Sprintf("%s: %s.%s is excluded from admission webhooks; this rule will have no effect", rp.Index(j), res, g))
					}
				}
			}
		}
	}
	return out
}
