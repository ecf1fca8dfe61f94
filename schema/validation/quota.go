package validation

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/quantity"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// ResourceQuota (pkg/registry/core/resourcequota: ValidateResourceQuota, its update and /status
// rules, the request-over-limit warnings of WarningsOnCreate) and LimitRange
// (pkg/registry/core/limitrange: ValidateLimitRange on create and update alike). The apiserver
// walks the resource lists and the set of a limit's resource names in Go map order; this
// package walks them in sorted key order. LimitRange's PrepareForCreate, which names a
// LimitRange sent without a name with a random UUID, is not modelled (names are inputs).

// standardQuotaResources are helper.IsStandardQuotaResourceName's names (with the hugepages
// prefixes, see isStandardQuotaResource).
var standardQuotaResources = map[string]bool{
	"cpu": true, "memory": true, "ephemeral-storage": true, "requests.cpu": true, "requests.memory": true,
	"requests.storage": true, "requests.ephemeral-storage": true, "limits.cpu": true, "limits.memory": true,
	"limits.ephemeral-storage": true, "pods": true, "resourcequotas": true, "services": true, "replicationcontrollers": true,
	"secrets": true, "persistentvolumeclaims": true, "configmaps": true, "services.nodeports": true, "services.loadbalancers": true,
}

func isStandardQuotaResource(name string) bool {
	return standardQuotaResources[name] || isHugePages(name) || strings.HasPrefix(name, "requests.hugepages-")
}

func isStandardQuotaScope(s string) bool {
	switch s {
	case "Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "VolumeAttributesClass", "CrossNamespacePodAffinity":
		return true
	}
	return false
}

// quotaScopeValidFor is helper.IsResourceQuotaScopeValidForResource.
func quotaScopeValidFor(scope, resource string) bool {
	podCount := resource == "pods"
	podCompute := resource == "cpu" || resource == "memory" || resource == "limits.cpu" || resource == "limits.memory" ||
		resource == "requests.cpu" || resource == "requests.memory"
	switch scope {
	case "Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity":
		return podCount || podCompute
	case "BestEffort":
		return podCount
	case "VolumeAttributesClass":
		return resource == "persistentvolumeclaims" || resource == "requests.storage"
	}
	return true
}

// quotaResourceName is ValidateResourceQuotaResourceName.
func quotaResourceName(p field.Path, name string) field.ErrorList {
	errs := ValidateResourceName(p, name)
	if !strings.Contains(name, "/") && !isStandardQuotaResource(name) {
		errs = append(errs, field.Invalid(p, name, "must be a standard resource for quota"))
	}
	return errs
}

// quotaResourceList validates a ResourceQuota's hard or used list: names, then quantities.
func quotaResourceList(p field.Path, list map[string]any) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(list) {
		kp := p.Key(k)
		errs = append(errs, quotaResourceName(kp, k)...)
		q, _ := qtyOrZero(list[k])
		errs = append(errs, ValidateResourceQuantityValue(kp, k, q)...)
	}
	return errs
}

func validateResourceQuota(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, true, ivalidation.NameIsDNSSubdomain)
	errs = append(errs, quotaSpec(field.NewPath("spec"), mapOf(obj["spec"]))...)
	st := mapOf(obj["status"])
	errs = append(errs, quotaResourceList(field.NewPath("status", "hard"), mapOf(st["hard"]))...)
	errs = append(errs, quotaResourceList(field.NewPath("status", "used"), mapOf(st["used"]))...)
	return distinct(errs)
}

func validateResourceQuotaUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	switch opts.Subresource {
	case "status":
		if str(mapOf(obj["metadata"]), "resourceVersion") == "" {
			errs = append(errs, field.Required(field.NewPath("resourceVersion"), ""))
		}
		st := mapOf(obj["status"])
		errs = append(errs, quotaResourceList(field.NewPath("status", "hard"), mapOf(st["hard"]))...)
		errs = append(errs, quotaResourceList(field.NewPath("status", "used"), mapOf(st["used"]))...)
		return distinct(errs)
	case "":
	default:
		return nil
	}
	spec := mapOf(obj["spec"])
	errs = append(errs, quotaSpec(field.NewPath("spec"), spec)...)
	scopes, oldScopes := stringList(spec["scopes"]), stringList(mapOf(old["spec"])["scopes"])
	if !sameStringSet(scopes, oldScopes) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "scopes"), nilIfEmpty(scopes), "field is immutable"))
	}
	return distinct(errs)
}

func sameStringSet(a, b []string) bool {
	sa, sb := make(map[string]bool, len(a)), make(map[string]bool, len(b))
	for _, s := range a {
		sa[s] = true
	}
	for _, s := range b {
		sb[s] = true
	}
	if len(sa) != len(sb) {
		return false
	}
	for s := range sa {
		if !sb[s] {
			return false
		}
	}
	return true
}

// quotaSpec is ValidateResourceQuotaSpec.
func quotaSpec(p field.Path, spec map[string]any) field.ErrorList {
	hard := mapOf(spec["hard"])
	errs := quotaResourceList(p.Child("hard"), hard)
	// Only the standard quota resources among the hard ones can be out of a scope's reach.
	var hardKeys []string
	for _, k := range sortedKeys(hard) {
		if isStandardQuotaResource(k) {
			hardKeys = append(hardKeys, k)
		}
	}
	scopes := stringList(spec["scopes"])
	scopesValue := nilIfEmpty(scopes)
	conflicts := func(set map[string]bool, at field.Path) field.ErrorList {
		var out field.ErrorList
		for _, pair := range [][2]string{{"BestEffort", "NotBestEffort"}, {"Terminating", "NotTerminating"}} {
			if set[pair[0]] && set[pair[1]] {
				out = append(out, field.Invalid(at, scopesValue, "conflicting scopes"))
			}
		}
		return out
	}
	if len(scopes) > 0 {
		sp := p.Child("scopes")
		set := map[string]bool{}
		for _, s := range scopes {
			if !isStandardQuotaScope(s) {
				errs = append(errs, field.Invalid(sp, scopesValue, "unsupported scope"))
			}
			for _, k := range hardKeys {
				if !quotaScopeValidFor(s, k) {
					errs = append(errs, field.Invalid(sp, scopesValue, "unsupported scope applied to resource"))
				}
			}
			set[s] = true
		}
		errs = append(errs, conflicts(set, sp)...)
	}
	sel, ok := spec["scopeSelector"].(map[string]any)
	if !ok {
		return errs
	}
	mp := p.Child("scopeSelector", "matchExpressions")
	set := map[string]bool{}
	for _, raw := range listOf(sel["matchExpressions"]) {
		req := mapOf(raw)
		name, op := str(req, "scopeName"), str(req, "operator")
		if !isStandardQuotaScope(name) {
			errs = append(errs, field.Invalid(mp.Child("scopeName"), name, "unsupported scope"))
		}
		for _, k := range hardKeys {
			if !quotaScopeValidFor(name, k) {
				errs = append(errs, field.Invalid(mp, internalGo(goTypeAt("", "ResourceQuota", "spec", "scopeSelector").Deref(), sel), "unsupported scope applied to resource"))
			}
		}
		switch name {
		case "BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity":
			if op != "Exists" {
				errs = append(errs, field.Invalid(mp.Child("operator"), op,
					"must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
			}
		}
		values := stringList(req["values"])
		switch op {
		case "In", "NotIn":
			if len(values) == 0 {
				errs = append(errs, field.Required(mp.Child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
			}
		case "Exists", "DoesNotExist":
			if len(values) != 0 {
				errs = append(errs, field.Invalid(mp.Child("values"), values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
			}
		default:
			errs = append(errs, field.Invalid(mp.Child("operator"), op, "not a valid selector operator"))
		}
		set[name] = true
	}
	// The apiserver names the scopes, not the selector, in this error.
	return append(errs, conflicts(set, mp)...)
}

// quotaWarnings is WarningsOnCreate: a request quota above its limit quota (the update warns of
// nothing).
func quotaWarnings(obj, old map[string]any, opts Options) []string {
	if old != nil || opts.Subresource != "" {
		return nil
	}
	hard := mapOf(mapOf(obj["spec"])["hard"])
	var out []string
	for _, r := range []string{"cpu", "memory", "storage", "ephemeral-storage"} {
		reqName := "requests." + r
		req, reqOK := hard[reqName]
		if !reqOK && (r == "cpu" || r == "memory") {
			if req, reqOK = hard[r]; reqOK {
				reqName = r
			}
		}
		limName := "limits." + r
		lim, limOK := hard[limName]
		if !reqOK || !limOK {
			continue
		}
		rq, _ := qtyOrZero(req)
		lq, _ := qtyOrZero(lim)
		if rq.Cmp(lq) > 0 {
			out = append(out, fmt.Sprintf("ResourceQuota %s (%s) should be less than %s (%s)", reqName, rq.String(), limName, lq.String()))
		}
	}
	return out
}

func validateLimitRange(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, true, ivalidation.NameIsDNSSubdomain)
	return distinct(append(errs, limitRangeSpec(mapOf(obj["spec"]))...))
}

func validateLimitRangeUpdate(obj, _ map[string]any, opts Options) field.ErrorList {
	if opts.Subresource != "" {
		return nil
	}
	return validateLimitRange(obj, opts)
}

// limitRangeTypeName is validateLimitRangeTypeName.
func limitRangeTypeName(p field.Path, t string) field.ErrorList {
	if errs := invalids(p, t, ivalidation.IsQualifiedName(t)); len(errs) > 0 {
		return errs
	}
	if !strings.Contains(t, "/") && t != "Pod" && t != "Container" && t != "PersistentVolumeClaim" {
		return field.ErrorList{field.Invalid(p, t, "must be a standard limit type or fully qualified")}
	}
	return nil
}

// limitRangeSpec is ValidateLimitRange's checks of spec.limits.
func limitRangeSpec(spec map[string]any) field.ErrorList {
	var errs field.ErrorList
	types := map[string]bool{}
	lp := field.NewPath("spec", "limits")
	for i, raw := range listOf(spec["limits"]) {
		ip := lp.Index(i)
		limit := mapOf(raw)
		t := str(limit, "type")
		errs = append(errs, limitRangeTypeName(ip.Child("type"), t)...)
		if types[t] {
			errs = append(errs, field.Duplicate(ip.Child("type"), t))
		}
		types[t] = true
		resourceName := ValidateResourceName
		if t == "Pod" || t == "Container" {
			resourceName = ValidateContainerResourceName
		}
		keys := map[string]bool{}
		lists := map[string]map[string]quantity.Quantity{}
		read := func(name string) {
			m := mapOf(limit[name])
			got := make(map[string]quantity.Quantity, len(m))
			for _, k := range sortedKeys(m) {
				errs = append(errs, resourceName(ip.Child(name).Key(k), k)...)
				keys[k] = true
				got[k], _ = qtyOrZero(m[k])
			}
			lists[name] = got
		}
		read("max")
		read("min")
		if t == "Pod" {
			if len(mapOf(limit["default"])) > 0 {
				errs = append(errs, field.Forbidden(ip.Child("default"), "may not be specified when `type` is 'Pod'"))
			}
			if len(mapOf(limit["defaultRequest"])) > 0 {
				errs = append(errs, field.Forbidden(ip.Child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
			}
		} else {
			read("default")
			read("defaultRequest")
		}
		if t == "PersistentVolumeClaim" {
			_, hasMin := mapOf(limit["min"])["storage"]
			_, hasMax := mapOf(limit["max"])["storage"]
			if !hasMin && !hasMax {
				errs = append(errs, field.Required(ip.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		read("maxLimitRequestRatio")
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			errs = append(errs, limitRangeResource(ip, k, lists)...)
		}
	}
	return errs
}

// limitRangeResource is ValidateLimitRange's comparison of one resource's min, max, default,
// default request and ratio.
func limitRangeResource(ip field.Path, k string, lists map[string]map[string]quantity.Quantity) field.ErrorList {
	var errs field.ErrorList
	min, hasMin := lists["min"][k]
	max, hasMax := lists["max"][k]
	def, hasDef := lists["default"][k]
	defReq, hasDefReq := lists["defaultRequest"][k]
	ratio, hasRatio := lists["maxLimitRequestRatio"][k]
	qv := func(q quantity.Quantity) any { return quantityValue{q} }
	if hasMin && hasMax && min.Cmp(max) > 0 {
		errs = append(errs, field.Invalid(ip.Child("min").Key(k), qv(min), fmt.Sprintf("min value %s is greater than max value %s", min.String(), max.String())))
	}
	if hasDefReq && hasMin && min.Cmp(defReq) > 0 {
		errs = append(errs, field.Invalid(ip.Child("defaultRequest").Key(k), qv(defReq), fmt.Sprintf("min value %s is greater than default request value %s", min.String(), defReq.String())))
	}
	if hasDefReq && hasMax && defReq.Cmp(max) > 0 {
		errs = append(errs, field.Invalid(ip.Child("defaultRequest").Key(k), qv(defReq), fmt.Sprintf("default request value %s is greater than max value %s", defReq.String(), max.String())))
	}
	if hasDefReq && hasDef && defReq.Cmp(def) > 0 {
		errs = append(errs, field.Invalid(ip.Child("defaultRequest").Key(k), qv(defReq), fmt.Sprintf("default request value %s is greater than default limit value %s", defReq.String(), def.String())))
	}
	if hasDef && hasMin && min.Cmp(def) > 0 {
		errs = append(errs, field.Invalid(ip.Child("default").Key(k), qv(min), fmt.Sprintf("min value %s is greater than default value %s", min.String(), def.String())))
	}
	if hasDef && hasMax && def.Cmp(max) > 0 {
		errs = append(errs, field.Invalid(ip.Child("default").Key(k), qv(max), fmt.Sprintf("default value %s is greater than max value %s", def.String(), max.String())))
	}
	if hasRatio && ratio.Cmp(quantity.FromInt64(1, quantity.DecimalSI)) < 0 {
		errs = append(errs, field.Invalid(ip.Child("maxLimitRequestRatio").Key(k), qv(ratio), fmt.Sprintf("ratio %s is less than 1", ratio.String())))
	}
	if hasRatio && hasMin && hasMax {
		// Milli-units when all three fit, whole units otherwise, as the apiserver compares them.
		const maxMilli = int64(^uint64(0)>>1) / 1000
		ratioValue := float64(ratio.ScaledValue(0))
		minValue, maxValue := min.ScaledValue(0), max.ScaledValue(0)
		if ratio.ScaledValue(0) < maxMilli && minValue < maxMilli && maxValue < maxMilli {
			ratioValue = float64(ratio.ScaledValue(-3)) / 1000
			minValue, maxValue = min.ScaledValue(-3), max.ScaledValue(-3)
		}
		limit := float64(maxValue) / float64(minValue)
		if ratioValue > limit {
			errs = append(errs, field.Invalid(ip.Child("maxLimitRequestRatio").Key(k), qv(ratio), fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), limit)))
		}
	}
	if !isOvercommitAllowed(k) && hasDef && hasDefReq && def.Cmp(defReq) != 0 {
		errs = append(errs, field.Invalid(ip.Child("defaultRequest").Key(k), qv(defReq), fmt.Sprintf("default value %s must equal to defaultRequest value %s in %s", def.String(), defReq.String(), k)))
	}
	return errs
}
