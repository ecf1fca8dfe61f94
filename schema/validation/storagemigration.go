package validation

import (
	"encoding/json"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// StorageVersionMigration (storagemigration.k8s.io) as ValidateStorageVersionMigration(Update,
// StatusUpdate) with its strategy: the resource to migrate (a DNS-1035 resource, a DNS
// subdomain group, each error list joined with ","), immutable once created; the status's
// resourceVersion a well-formed resource version that never changes once set, its conditions
// metav1 conditions where Succeeded and Failed are never both true and neither goes back once
// true. Its declarative rules are alpha (shadowed), so they add nothing.

func validateStorageVersionMigration(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	res := mapOf(mapOf(obj["spec"])["resource"])
	p := field.NewPath("spec", "resource")
	if r := str(res, "resource"); r == "" {
		errs = append(errs, field.Required(p.Child("resource"), "resource is required to be set"))
	} else if msgs := validation.IsDNS1035Label(r); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("resource"), r, strings.Join(msgs, ",")))
	}
	if g := str(res, "group"); g != "" {
		if msgs := validation.IsDNS1123Subdomain(g); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("group"), g, strings.Join(msgs, ",")))
		}
	}
	return errs
}

func validateStorageVersionMigrationUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	switch opts.Subresource {
	case "status":
		return storageVersionMigrationStatusUpdate(obj, old)
	case "":
	default:
		return nil
	}
	errs := validateStorageVersionMigration(obj, opts)
	errs = append(errs, coreObjectMetaUpdate(obj, old)...)
	st := goTypeAt("storagemigration.k8s.io", "StorageVersionMigration", "spec")
	if !goSemanticEqual(st, obj["spec"], old["spec"]) {
		errs = append(errs, field.Invalid(field.NewPath("spec"), internalGo(st, obj["spec"]), "field is immutable"))
	}
	return distinct(errs)
}

func storageVersionMigrationStatusUpdate(obj, old map[string]any) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	p := field.NewPath("status")
	st, oldSt := mapOf(obj["status"]), mapOf(old["status"])
	rv := str(st, "resourceVersion")
	if rv != "" && !validation.IsWellFormedResourceVersion(rv) {
		errs = append(errs, field.Invalid(p.Child("resourceVersion"), rv, "resource version is not well formed: "+rv))
	}
	conds := listOf(st["conditions"])
	errs = append(errs, MetaConditions(p.Child("conditions"), conds)...)
	if o := str(oldSt, "resourceVersion"); o != "" && o != rv {
		errs = append(errs, field.Invalid(p.Child("resourceVersion"), rv, "field is immutable"))
	}
	ct := goTypeAt("storagemigration.k8s.io", "StorageVersionMigration", "status", "conditions")
	succeeded, failed := metaConditionTrue(conds, "Succeeded"), metaConditionTrue(conds, "Failed")
	if succeeded && failed {
		errs = append(errs, field.Invalid(p.Child("conditions"), internalGo(ct, st["conditions"]), "Both success and failed conditions cannot be true at the same time"))
	}
	oldConds := listOf(oldSt["conditions"])
	if metaConditionTrue(oldConds, "Succeeded") && !succeeded {
		errs = append(errs, field.Invalid(p.Child("conditions"), internalGo(ct, st["conditions"]), "Success condition cannot be set to false once it is true"))
	}
	if metaConditionTrue(oldConds, "Failed") && !failed {
		errs = append(errs, field.Invalid(p.Child("conditions"), internalGo(ct, st["conditions"]), "Failed condition cannot be set to false once it is true"))
	}
	return errs
}

// metaConditionTrue is apimachinery's FindStatusCondition(conds, typ) with status True: the
// first condition of the type decides.
func metaConditionTrue(conds []any, typ string) bool {
	for _, c := range conds {
		if m := mapOf(c); str(m, "type") == typ {
			return str(m, "status") == "True"
		}
	}
	return false
}

// metaStructJSON is encoding/json of the metav1 struct t (GroupResource or Condition) that m
// decodes to: its JSON names in declaration order, every field but a zero observedGeneration
// (omitempty), an unset time null.
func metaStructJSON(t string, m map[string]any) []byte {
	var v any
	switch t {
	case "v1.GroupResource":
		v = struct {
			Group    string `json:"group"`
			Resource string `json:"resource"`
		}{str(m, "group"), str(m, "resource")}
	default:
		c := struct {
			Type               string  `json:"type"`
			Status             string  `json:"status"`
			ObservedGeneration int64   `json:"observedGeneration,omitempty"`
			LastTransitionTime *string `json:"lastTransitionTime"`
			Reason             string  `json:"reason"`
			Message            string  `json:"message"`
		}{Type: str(m, "type"), Status: str(m, "status"), Reason: str(m, "reason"), Message: str(m, "message")}
		c.ObservedGeneration, _ = integer(m, "observedGeneration")
		if at := str(m, "lastTransitionTime"); at != "" {
			c.LastTransitionTime = &at
		}
		v = c
	}
	b, _ := json.Marshal(v)
	return b
}
