package validation

import (
	"fmt"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// PersistentVolumeClaim: ValidatePersistentVolumeClaim, ValidatePersistentVolumeClaimUpdate
// (the spec immutable but for a bound claim's storage request and volumeAttributesClassName,
// shrinking only above status.capacity: RecoverVolumeExpansionFailure is GA), the /status rules,
// the warnings and the strategies' data source normalisation.

const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

func validatePersistentVolumeClaim(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	return distinct(append(errs, PersistentVolumeClaimSpec(field.NewPath("spec"), mapOf(obj["spec"]), ClaimSpecOptions{})...))
}

// claimOptions is ValidationOptionsForPersistentVolumeClaim on update.
func claimOptions(old map[string]any) ClaimSpecOptions {
	spec := mapOf(old["spec"])
	var o ClaimSpecOptions
	_, ds := mapOf(spec["dataSource"])["apiGroup"].(string)
	_, dsr := mapOf(spec["dataSourceRef"])["apiGroup"].(string)
	o.AllowInvalidAPIGroupInDataSourceOrRef = ds || dsr
	if sel, ok := spec["selector"].(map[string]any); ok && len(ValidateLabelSelector(field.Path{}, sel, LabelSelectorOptions{})) > 0 {
		o.AllowInvalidLabelValueInSelector = true
	}
	return o
}

func validatePersistentVolumeClaimUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	switch opts.Subresource {
	case "status":
		return distinct(claimStatusUpdate(obj, old))
	case "":
	default:
		return nil
	}
	errs := coreObjectMetaUpdate(obj, old)
	errs = append(errs, coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)...)
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	errs = append(errs, PersistentVolumeClaimSpec(field.NewPath("spec"), spec, claimOptions(old))...)

	// The specs compared: the new one with what may change put back as it was.
	newC, oldC := copyMap(spec), copyMap(oldSpec)
	if str(oldSpec, "volumeName") == "" {
		setOrDelete(oldC, "volumeName", spec["volumeName"])
	}
	ann := stringMap(mapOf(obj["metadata"])["annotations"])
	oldAnn := stringMap(mapOf(old["metadata"])["annotations"])
	_, hasOldSC := oldSpec["storageClassName"].(string)
	newSC, hasNewSC := spec["storageClassName"].(string)
	oldBeta, hasOldBeta := oldAnn[betaStorageClassAnnotation]
	newBeta, hasNewBeta := ann[betaStorageClassAnnotation]
	if hasOldBeta && !hasOldSC && hasNewSC && newSC == oldBeta && (!hasNewBeta || newBeta == oldBeta) {
		// An upgrade from the beta annotation to storageClassName.
		delete(newC, "storageClassName")
	} else {
		if newBeta != oldBeta {
			errs = append(errs, field.Invalid(field.NewPath("metadata").Child("annotations", betaStorageClassAnnotation), newBeta, "field is immutable"))
		}
		if hasNewSC && !hasOldSC && (!hasOldBeta || newSC == oldBeta) {
			setOrDelete(newC, "storageClassName", oldSpec["storageClassName"])
		}
	}
	st, oldSt := mapOf(obj["status"]), mapOf(old["status"])
	bound := str(st, "phase") == "Bound"
	if res, ok := newC["resources"].(map[string]any); ok && bound {
		if req, ok := res["requests"].(map[string]any); ok {
			req = copyMap(req)
			req["storage"] = mapOf(mapOf(oldSpec["resources"])["requests"])["storage"]
			res = copyMap(res)
			res["requests"] = req
			newC["resources"] = res
		}
	}
	if bound {
		setOrDelete(newC, "volumeAttributesClassName", oldC["volumeAttributesClassName"])
	}
	if !goSemanticEqual(goTypeAt("", "PersistentVolumeClaim", "spec"), newC, oldC) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"+claimSpecDiff(oldC, newC)))
	}
	newSize, _ := qtyOrZero(mapOf(mapOf(spec["resources"])["requests"])["storage"])
	oldSize, _ := qtyOrZero(mapOf(mapOf(oldSpec["resources"])["requests"])["storage"])
	statusSize, _ := qtyOrZero(mapOf(oldSt["capacity"])["storage"])
	if newSize.Cmp(oldSize) < 0 && newSize.Cmp(statusSize) <= 0 {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "resources", "requests", "storage"), "field can not be less than status.capacity"))
	}
	vm, hasVM := spec["volumeMode"].(string)
	ovm, hasOVM := oldSpec["volumeMode"].(string)
	if hasVM != hasOVM || vm != ovm {
		var bad any
		if hasVM {
			bad = vm
		}
		errs = append(errs, field.Invalid(field.NewPath("volumeMode"), bad, "field is immutable"))
	}
	vac, hasVAC := spec["volumeAttributesClassName"].(string)
	ovac, hasOVAC := oldSpec["volumeAttributesClassName"].(string)
	if hasVAC != hasOVAC || vac != ovac {
		if _, cur := oldSt["currentVolumeAttributesClassName"].(string); cur {
			p := field.NewPath("spec", "volumeAttributesClassName")
			if !hasVAC {
				errs = append(errs, field.Forbidden(p, "update to nil is forbidden when status.currentVolumeAttributesClassName is not nil"))
			} else if vac == "" {
				errs = append(errs, field.Forbidden(p, "update to empty string is forbidden when status.currentVolumeAttributesClassName is not nil"))
			}
		}
	}
	return distinct(errs)
}

// claimStatusUpdate is ValidatePersistentVolumeClaimStatusUpdate.
func claimStatusUpdate(obj, old map[string]any) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	if str(mapOf(obj["metadata"]), "resourceVersion") == "" {
		errs = append(errs, field.Required(field.NewPath("resourceVersion"), ""))
	}
	if len(listOf(mapOf(obj["spec"])["accessModes"])) == 0 {
		errs = append(errs, field.Required(field.NewPath("Spec", "accessModes"), ""))
	}
	st := mapOf(obj["status"])
	capacity := mapOf(st["capacity"])
	for _, k := range sortedKeys(capacity) {
		errs = append(errs, basicResource(field.NewPath("status", "capacity").Key(k), capacity[k])...)
	}
	rsp := field.NewPath("status", "allocatedResourceStatuses")
	statuses := mapOf(st["allocatedResourceStatuses"])
	for _, k := range sortedKeys(statuses) {
		errs = append(errs, claimResourceKey(rsp, k)...)
		switch s, _ := statuses[k].(string); s {
		case "ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizePending", "NodeResizeInProgress", "NodeResizeInfeasible":
		default:
			errs = append(errs, field.NotSupported(rsp, k, []string{"ControllerResizeInProgress", "ControllerResizeInfeasible",
				"NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending"}))
		}
	}
	ap := field.NewPath("status", "allocatedResources")
	allocated := mapOf(st["allocatedResources"])
	for _, k := range sortedKeys(allocated) {
		if e := claimResourceKey(ap, k); len(e) > 0 {
			errs = append(errs, e...)
			continue
		}
		if e := basicResource(ap.Key(k), allocated[k]); len(e) > 0 {
			errs = append(errs, e...)
		} else if q, ok := qtyOrZero(allocated[k]); ok {
			errs = append(errs, ValidateResourceQuantityValue(ap.Key(k), "storage", q)...)
		}
	}
	return errs
}

// basicResource is validateBasicResource: a quantity whose value is negative.
func basicResource(p field.Path, v any) field.ErrorList {
	q, ok := qtyOrZero(v)
	if !ok {
		return nil
	}
	if n := q.ScaledValue(0); n < 0 {
		return field.ErrorList{field.Invalid(p, n, "must be a valid resource quantity")}
	}
	return nil
}

// claimResourceKey is validatePersistentVolumeClaimResourceKey.
func claimResourceKey(p field.Path, k string) field.ErrorList {
	errs := invalids(p, k, validation.IsQualifiedName(k))
	if len(errs) > 0 {
		return errs
	}
	if isNativeResource(k) && k != "storage" {
		return field.ErrorList{field.NotSupported(p, k, []string{"storage"})}
	}
	return nil
}

// claimWarnings is GetWarningsForPersistentVolumeClaim (create and update; /status warns of
// nothing): the deprecated beta storage class annotation, fractional byte sizes.
func claimWarnings(obj, _ map[string]any, opts Options) []string {
	if opts.Subresource != "" {
		return nil
	}
	var out []string
	if _, ok := stringMap(mapOf(obj["metadata"])["annotations"])[betaStorageClassAnnotation]; ok {
		out = append(out, fmt.Sprintf("%s: deprecated since v1.8; use \"storageClassName\" attribute instead",
			field.NewPath("metadata", "annotations").Key(betaStorageClassAnnotation)))
	}
	return append(out, ClaimSpecWarnings(field.NewPath("spec"), mapOf(obj["spec"]))...)
}

// prepareClaimCreate is the strategy's PrepareForCreate beyond the status reset: a
// cross-namespace dataSourceRef dropped (CrossNamespaceVolumeDataSource is off), a dataSource
// that is neither a claim nor a volume snapshot dropped when there is no dataSourceRef, then
// dataSource and dataSourceRef filled from each other (NormalizeDataSources).
func prepareClaimCreate(obj map[string]any, _ Options) map[string]any {
	return prepareClaimSpec(obj, nil)
}

// prepareClaimUpdate is PrepareForUpdate: the same, except what the stored spec already uses; on
// /status, a health status the stored claim does not have is dropped (CSIVolumeHealth is off).
func prepareClaimUpdate(obj, old map[string]any, opts Options) map[string]any {
	switch opts.Subresource {
	case "":
		return prepareClaimSpec(obj, mapOf(old["spec"]))
	case "status":
		// The spec is the stored one (the registry's reset does the same).
		if !semanticEqual(obj["spec"], old["spec"]) {
			obj = copyMap(obj)
			setOrDelete(obj, "spec", old["spec"])
		}
		st, ok := obj["status"].(map[string]any)
		if _, has := st["healthStatus"]; !ok || !has {
			return obj
		}
		if _, oldHas := mapOf(old["status"])["healthStatus"]; oldHas {
			return obj
		}
		out := copyMap(obj)
		st = copyMap(st)
		delete(st, "healthStatus")
		out["status"] = st
		return out
	}
	return obj
}

func prepareClaimSpec(obj map[string]any, oldSpec map[string]any) map[string]any {
	spec, ok := obj["spec"].(map[string]any)
	if !ok {
		return obj
	}
	s := copyMap(spec)
	if dsr, ok := s["dataSourceRef"].(map[string]any); ok {
		if ns, _ := dsr["namespace"].(string); ns != "" {
			if _, inUse := oldSpec["dataSourceRef"].(map[string]any); !inUse {
				delete(s, "dataSourceRef")
			}
		}
	}
	_, oldDS := oldSpec["dataSource"].(map[string]any)
	_, oldDSR := oldSpec["dataSourceRef"].(map[string]any)
	if !oldDS && !oldDSR {
		if _, hasDSR := s["dataSourceRef"].(map[string]any); !hasDSR {
			if ds, ok := s["dataSource"].(map[string]any); ok {
				g := str(ds, "apiGroup")
				kind := str(ds, "kind")
				if !(kind == "PersistentVolumeClaim" && g == "") && !(kind == "VolumeSnapshot" && g == "snapshot.storage.k8s.io") {
					delete(s, "dataSource")
				}
			}
		}
	}
	ds, hasDS := s["dataSource"].(map[string]any)
	dsr, hasDSR := s["dataSourceRef"].(map[string]any)
	switch {
	case hasDS && !hasDSR:
		s["dataSourceRef"] = copyRef(ds)
	case hasDSR && !hasDS:
		if ns, _ := dsr["namespace"].(string); ns == "" {
			s["dataSource"] = copyRef(dsr)
		}
	}
	if semanticEqual(s, spec) {
		return obj
	}
	out := copyMap(obj)
	out["spec"] = s
	return out
}

// copyRef is the kind, name and apiGroup of a data source reference.
func copyRef(ref map[string]any) map[string]any {
	// apiGroup has no omitempty in either v1 type: a nil one is written as null.
	out := map[string]any{"kind": str(ref, "kind"), "name": str(ref, "name"), "apiGroup": nil}
	if g, ok := ref["apiGroup"].(string); ok {
		out["apiGroup"] = g
	}
	return out
}

// copyMap copies m one level deep (an empty map for nil).
func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// setOrDelete sets m[key] to v, or removes it when v is nil (absent).
func setOrDelete(m map[string]any, key string, v any) {
	if v == nil {
		delete(m, key)
		return
	}
	m[key] = v
}

// claimSpecDiff is apimachinery's diff.Diff of the two internal PersistentVolumeClaimSpec values.
func claimSpecDiff(old, new map[string]any) string {
	return unifiedDiff(splitLines(renderGoJSON(old, "PersistentVolumeClaimSpec")), splitLines(renderGoJSON(new, "PersistentVolumeClaimSpec")), 3)
}
