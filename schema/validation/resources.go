package validation

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/quantity"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// Resource names and quantities (validateResourceName, ValidateContainerResourceName,
// validateResourceRequirements, ValidateResourceQuantityValue), shared by containers, pod-level
// resources and overhead. The apiserver walks a ResourceList in Go map order; this package walks
// it in sorted key order.

// standardResources is helper.IsStandardResourceName's set (without the hugepages prefixes).
var standardResources = map[string]bool{
	"cpu": true, "memory": true, "ephemeral-storage": true, "requests.cpu": true, "requests.memory": true,
	"requests.ephemeral-storage": true, "limits.cpu": true, "limits.memory": true, "limits.ephemeral-storage": true,
	"pods": true, "resourcequotas": true, "services": true, "replicationcontrollers": true, "secrets": true,
	"configmaps": true, "persistentvolumeclaims": true, "storage": true, "requests.storage": true,
	"services.nodeports": true, "services.loadbalancers": true,
}

var integerResources = map[string]bool{
	"pods": true, "resourcequotas": true, "services": true, "replicationcontrollers": true, "secrets": true,
	"configmaps": true, "persistentvolumeclaims": true, "services.nodeports": true, "services.loadbalancers": true,
}

func isHugePages(name string) bool { return strings.HasPrefix(name, "hugepages-") }

func isNativeResource(name string) bool {
	return !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
}

func isExtendedResource(name string) bool {
	if isNativeResource(name) || strings.HasPrefix(name, "requests.") {
		return false
	}
	return len(ivalidation.IsQualifiedName("requests."+name)) == 0
}

func isOvercommitAllowed(name string) bool { return isNativeResource(name) && !isHugePages(name) }

func isStandardResource(name string) bool {
	return standardResources[name] || isHugePages(name) || strings.HasPrefix(name, "requests.hugepages-")
}

func isIntegerResource(name string) bool { return integerResources[name] || isExtendedResource(name) }

// ValidateResourceName is validateResourceName: a qualified name, standard when unprefixed.
func ValidateResourceName(p field.Path, name string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range ivalidation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	if len(errs) != 0 {
		return errs
	}
	if !strings.Contains(name, "/") && !isStandardResource(name) {
		return append(errs, field.Invalid(p, name, "must be a standard resource type or fully qualified"))
	}
	return errs
}

// ValidateContainerResourceName is ValidateContainerResourceName.
func ValidateContainerResourceName(p field.Path, name string) field.ErrorList {
	errs := ValidateResourceName(p, name)
	if !strings.Contains(name, "/") {
		if !(name == "cpu" || name == "memory" || name == "ephemeral-storage" || isHugePages(name)) {
			return append(errs, field.Invalid(p, name, "must be a standard resource for containers"))
		}
	} else if !isNativeResource(name) && !isExtendedResource(name) {
		return append(errs, field.Invalid(p, name, "doesn't follow extended resource name standard"))
	}
	return errs
}

// podLevelResources are resourcehelper.SupportedPodLevelResources, sorted.
var podLevelResources = []string{"cpu", "hugepages-", "memory"}

func validatePodResourceName(p field.Path, name string) field.ErrorList {
	errs := ValidateResourceName(p, name)
	if len(errs) != 0 {
		return errs
	}
	if !(name == "cpu" || name == "memory" || isHugePages(name)) {
		return append(errs, field.NotSupported(p, name, podLevelResources))
	}
	return errs
}

// qty is a parsed quantity; ok is false for a value that is not one (the typed round trip has
// refused it in the registry).
func qty(v any) (quantity.Quantity, bool) {
	switch x := v.(type) {
	case string:
		q, err := quantity.Parse(x)
		return q, err == nil
	case int64:
		return quantity.FromInt64(x, quantity.DecimalSI), true
	case float64:
		q, err := quantity.Parse(fmt.Sprint(x))
		return q, err == nil
	}
	return quantity.Quantity{}, false
}

// ValidateResourceQuantityValue is ValidateResourceQuantityValue: not negative, whole for
// integer resources.
func ValidateResourceQuantityValue(p field.Path, name string, q quantity.Quantity) field.ErrorList {
	var errs field.ErrorList
	if q.Sign() < 0 {
		errs = append(errs, field.Invalid(p, q.String(), "must be greater than or equal to 0"))
	}
	if isIntegerResource(name) && q.ScaledValue(-3)%1000 != 0 {
		errs = append(errs, field.Invalid(p, quantityValue{q}, "must be an integer"))
	}
	return errs
}

// quantityValue prints a quantity as a bad value the way apimachinery prints a
// resource.Quantity (its String, through fmt.Stringer... as JSON of the string).
type quantityValue struct{ q quantity.Quantity }

func (v quantityValue) MarshalJSON() ([]byte, error) { return v.q.MarshalJSON() }

// hugePageDivisible is helper.IsHugePageResourceValueDivisible.
func hugePageDivisible(name string, q quantity.Quantity) bool {
	page, err := quantity.Parse(strings.TrimPrefix(name, "hugepages-"))
	if err != nil || page.Sign() <= 0 || page.ScaledValue(-3)%1000 != 0 {
		return false
	}
	pv := page.ScaledValue(0)
	if pv == 0 {
		return false
	}
	return q.ScaledValue(0)%pv == 0
}

// resourceRequirements is validateResourceRequirements with the resource name rule nameFn.
func resourceRequirements(p field.Path, r map[string]any, nameFn func(field.Path, string) field.ErrorList, claimNames map[string]bool) field.ErrorList {
	var errs field.ErrorList
	limPath, reqPath := p.Child("limits"), p.Child("requests")
	lims, reqs := mapOf(r["limits"]), mapOf(r["requests"])
	var limCPUMem, reqCPUMem, limHuge, reqHuge bool
	// nameAndValue are a resource's name and quantity rules at fp.Key(name); they are pure,
	// so they are asked at the root first and the path is built only for a resource with an
	// error.
	nameAndValue := func(fp field.Path, name string, q quantity.Quantity) field.ErrorList {
		if len(nameFn(field.Path{}, name)) == 0 && len(ValidateResourceQuantityValue(field.Path{}, name, q)) == 0 {
			return nil
		}
		fp = fp.Key(name)
		return append(nameFn(fp, name), ValidateResourceQuantityValue(fp, name, q)...)
	}
	for _, name := range sortedKeys(lims) {
		q, _ := qty(lims[name])
		errs = append(errs, nameAndValue(limPath, name, q)...)
		if isHugePages(name) {
			fp := limPath.Key(name)
			limHuge = true
			if !hugePageDivisible(name, q) {
				errs = append(errs, field.Invalid(fp, q.String(), fmt.Sprintf("%s is not positive integer multiple of %s", q.String(), name)))
			}
		}
		if name == "cpu" || name == "memory" {
			limCPUMem = true
		}
	}
	for _, name := range sortedKeys(reqs) {
		q, _ := qty(reqs[name])
		errs = append(errs, nameAndValue(reqPath, name, q)...)
		if lraw, exists := lims[name]; exists {
			l, _ := qty(lraw)
			if c := q.Cmp(l); c != 0 && !isOvercommitAllowed(name) {
				errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, l.String())))
			} else if c > 0 {
				errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, l.String())))
			}
		} else if !isOvercommitAllowed(name) {
			errs = append(errs, field.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
		if isHugePages(name) {
			fp := reqPath.Key(name)
			reqHuge = true
			if !hugePageDivisible(name, q) {
				errs = append(errs, field.Invalid(fp, q.String(), fmt.Sprintf("%s is not positive integer multiple of %s", q.String(), name)))
			}
		}
		if name == "cpu" || name == "memory" {
			reqCPUMem = true
		}
	}
	if !limCPUMem && !reqCPUMem && (reqHuge || limHuge) {
		errs = append(errs, field.Forbidden(p, "HugePages require cpu or memory"))
	}
	if claims := listOf(r["claims"]); len(claims) > 0 {
		errs = append(errs, resourceClaimNames(p.Child("claims"), claims, claimNames)...)
	}
	return errs
}

// resourceClaimNames is validateResourceClaimNames: each claim a pod resource claim, each
// claim (or claim/request) referenced once.
func resourceClaimNames(p field.Path, claims []any, podClaims map[string]bool) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	claimsWithRequest := map[string]int{} // claim -> how many claim/request keys
	for i, raw := range claims {
		c := mapOf(raw)
		name, request := str(c, "name"), str(c, "request")
		ip := p.Index(i)
		if name == "" {
			errs = append(errs, field.Required(ip, ""))
			continue
		}
		if names[name] {
			errs = append(errs, field.Duplicate(ip, name))
		} else {
			key := name
			if request != "" {
				errs = append(errs, dns1123Label(ip.Child("request"), request)...)
				key += "/" + request
			}
			if names[key] {
				errs = append(errs, field.Duplicate(ip, key))
			} else if request == "" {
				// One error per claim/request already referenced.
				for k := 0; k < claimsWithRequest[name]; k++ {
					errs = append(errs, field.Duplicate(ip, name))
				}
			}
			if !names[key] && request != "" {
				claimsWithRequest[name]++
			}
			names[key] = true
		}
		if !podClaims[name] {
			e := field.NotFound(ip, name)
			e.Detail = "must be one of the names in pod.spec.resourceClaims"
			if len(podClaims) == 0 {
				e.Detail += " which is empty"
			} else {
				l := make([]string, 0, len(podClaims))
				for n := range podClaims {
					l = append(l, n)
				}
				sort.Strings(l)
				e.Detail += ": " + strings.Join(l, ", ")
			}
			errs = append(errs, e)
		}
	}
	return errs
}
