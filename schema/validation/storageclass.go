package validation

import (
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// StorageClass (storage.k8s.io) as ValidateStorageClass and ValidateStorageClassUpdate, with
// 1.37's enforced declarative rules (beta: provisioner required; provisioner, parameters,
// reclaimPolicy and volumeBindingMode immutable) after the hand-written errors, which they
// replace where they match.

func validateStorageClass(obj map[string]any, _ Options) field.ErrorList {
	return withDeclarative(storageClassRules(obj), storageClassDeclarative(obj, nil))
}

func validateStorageClassUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := storageClassRules(obj)
	errs = append(errs, coreObjectMetaUpdate(obj, old)...)
	// The hand-written immutability errors give way to the declarative ones.
	return withDeclarative(errs, storageClassDeclarative(obj, old))
}

// storageClassRules is ValidateStorageClass without the declarative required provisioner.
func storageClassRules(obj map[string]any) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	if p := str(obj, "provisioner"); p != "" {
		errs = append(errs, qualifiedName(field.NewPath("provisioner"), strings.ToLower(p))...)
	}
	errs = append(errs, provisionerParameters(field.NewPath("parameters"), stringMap(obj["parameters"]))...)
	if rp, ok := obj["reclaimPolicy"].(string); ok && rp != "" && rp != "Delete" && rp != "Retain" {
		errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), rp, []string{"Delete", "Retain"}))
	}
	bp := field.NewPath("volumeBindingMode")
	switch mode, ok := obj["volumeBindingMode"].(string); {
	case !ok:
		errs = append(errs, field.Required(bp, ""))
	case mode != "Immediate" && mode != "WaitForFirstConsumer":
		errs = append(errs, field.NotSupported(bp, mode, []string{"Immediate", "WaitForFirstConsumer"}))
	}
	return append(errs, allowedTopologies(field.NewPath("allowedTopologies"), listOf(obj["allowedTopologies"]))...)
}

// provisionerParameters is validateParameters (empty allowed).
func provisionerParameters(p field.Path, params map[string]string) field.ErrorList {
	if len(params) > 512 {
		return field.ErrorList{field.TooLong(p, "", 512)}
	}
	var errs field.ErrorList
	size := 0
	for _, k := range sortedStringKeys(params) {
		if k == "" {
			errs = append(errs, field.Invalid(p, k, "field can not be empty."))
		}
		size += len(k) + len(params[k])
	}
	if size > 256*(1<<10) {
		errs = append(errs, field.TooLong(p, "", 256*(1<<10)))
	}
	return errs
}

func sortedStringKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// allowedTopologies is validateAllowedTopologies: each term's requirements, then a term equal to
// an earlier one (as a map from key to value set) is a duplicate. The apiserver compares each
// term with a slice it pre-fills with as many nil maps as there are terms, which an empty term
// equals: an empty term is a duplicate that many times, plus once per earlier empty term.
func allowedTopologies(p field.Path, terms []any) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]int, len(terms))
	for i, raw := range terms {
		ip := p.Index(i)
		ep := ip.Child("matchLabelExpressions")
		sets := map[string][]string{}
		for j, rawReq := range listOf(mapOf(raw)["matchLabelExpressions"]) {
			req := mapOf(rawReq)
			rp := ep.Index(j)
			values := stringList(req["values"])
			if len(values) == 0 {
				errs = append(errs, field.Required(rp.Child("values"), ""))
			}
			set := make(map[string]bool, len(values))
			for k, v := range values {
				if set[v] {
					errs = append(errs, field.Duplicate(rp.Child("values").Index(k), v))
				}
				set[v] = true
			}
			key := str(req, "key")
			errs = append(errs, qualifiedName(rp.Child("key"), key)...)
			if _, dup := sets[key]; dup {
				errs = append(errs, field.Duplicate(rp.Child("key"), key))
			}
			vs := make([]string, 0, len(set))
			for v := range set {
				vs = append(vs, v)
			}
			sort.Strings(vs)
			sets[key] = vs
		}
		canon := topologyTermKey(sets)
		n := seen[canon]
		if len(sets) == 0 {
			n += len(terms)
		}
		for ; n > 0; n-- {
			errs = append(errs, field.Duplicate(ep, ""))
		}
		seen[canon]++
	}
	return errs
}

// topologyTermKey is a term's key-to-values map as one comparable string.
func topologyTermKey(sets map[string][]string) string {
	keys := make([]string, 0, len(sets))
	for k := range sets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		for _, v := range sets[k] {
			b.WriteString(v)
			b.WriteByte(1)
		}
		b.WriteByte(2)
	}
	return b.String()
}

// storageClassDeclarative: provisioner required, then (on update, when changed) provisioner,
// parameters, reclaimPolicy and volumeBindingMode immutable.
func storageClassDeclarative(obj, old map[string]any) field.ErrorList {
	var errs field.ErrorList
	prov := str(obj, "provisioner")
	if old == nil || prov != str(old, "provisioner") {
		if prov == "" {
			errs = append(errs, field.Required(field.NewPath("provisioner"), ""))
		}
		if old != nil {
			// Required and immutable are two rules: emptying a stored provisioner breaks both
			// (a 100,000-case update row showed it, 47 times).
			errs = append(errs, field.Invalid(field.NewPath("provisioner"), nil, "field is immutable"))
		}
	}
	if old == nil {
		return errs
	}
	if !semanticEqual(emptyToNilMap(obj["parameters"]), emptyToNilMap(old["parameters"])) {
		errs = append(errs, field.Invalid(field.NewPath("parameters"), nil, "field is immutable"))
	}
	for _, key := range []string{"reclaimPolicy", "volumeBindingMode"} {
		v, ok := obj[key].(string)
		ov, oldOK := old[key].(string)
		if ok != oldOK || v != ov {
			errs = append(errs, field.Invalid(field.NewPath(key), nil, "field is immutable"))
		}
	}
	return errs
}

// emptyToNilMap makes an empty map the absent one (a nil and an empty Go map are semantically
// equal).
func emptyToNilMap(v any) any {
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return nil
	}
	return v
}

// storageClassWarnings is GetWarningsForStorageClass: deprecated node labels as topology keys.
func storageClassWarnings(obj, _ map[string]any, _ Options) []string {
	var out []string
	p := field.NewPath("allowedTopologies")
	for i, t := range listOf(obj["allowedTopologies"]) {
		for j, req := range listOf(mapOf(t)["matchLabelExpressions"]) {
			if msg, ok := deprecatedNodeLabels[str(mapOf(req), "key")]; ok {
				out = append(out, p.Index(i).Child("matchLabelExpressions").Index(j).Child("key").String()+": "+msg)
			}
		}
	}
	return out
}
