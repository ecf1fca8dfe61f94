package validation

import (
	"encoding/json"
	"fmt"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/quantity"
	"github.com/writepath/writepath/internal/validation"
)

// The PersistentVolumeClaim spec as core's ValidatePersistentVolumeClaimSpec checks it, shared by
// every kind that carries one: StatefulSet's volumeClaimTemplates, and the claims themselves.

// ClaimSpecOptions are PersistentVolumeClaimSpecValidationOptions: the zero value is a create
// (VolumeAttributesClass is GA in 1.37, so volumeAttributesClassName is always checked).
type ClaimSpecOptions struct {
	// AllowInvalidLabelValueInSelector accepts selector values that are not label values (a
	// stored claim whose selector already has them).
	AllowInvalidLabelValueInSelector bool
	// AllowInvalidAPIGroupInDataSourceOrRef skips the apiGroup checks (a stored claim whose data
	// source or reference names an apiGroup).
	AllowInvalidAPIGroupInDataSourceOrRef bool
}

// PersistentVolumeClaimSpec is ValidatePersistentVolumeClaimSpec on the claim spec at p, in the
// apiserver's order. spec is not modified.
func PersistentVolumeClaimSpec(p field.Path, spec map[string]any, opts ClaimSpecOptions) field.ErrorList {
	var errs field.ErrorList
	modes := stringList(spec["accessModes"])
	if len(modes) == 0 {
		errs = append(errs, field.Required(p.Child("accessModes"), "at least 1 access mode is required"))
	}
	if sel, ok := spec["selector"].(map[string]any); ok {
		errs = append(errs, ValidateLabelSelector(p.Child("selector"), sel, LabelSelectorOptions{AllowInvalidLabelValue: opts.AllowInvalidLabelValueInSelector})...)
	}
	supported := []string{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}
	rwop, other := false, false
	for _, m := range modes {
		if !contains(supported, m) {
			errs = append(errs, field.NotSupported(p.Child("accessModes"), m, supported))
		}
		if m == "ReadWriteOncePod" {
			rwop = true
		} else if contains(supported, m) {
			other = true
		}
	}
	if rwop && other {
		errs = append(errs, field.Forbidden(p.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}
	sp := p.Child("resources").Key("storage")
	if v, ok := mapOf(mapOf(spec["resources"])["requests"])["storage"]; !ok {
		errs = append(errs, field.Required(sp, ""))
	} else if q, _ := qtyOrZero(v); q.Sign() <= 0 {
		errs = append(errs, field.Invalid(sp, q.String(), "must be greater than zero"))
	}
	if sc, ok := spec["storageClassName"].(string); ok && sc != "" {
		for _, m := range validation.NameIsDNSSubdomain(sc, false) {
			errs = append(errs, field.Invalid(p.Child("storageClassName"), sc, m))
		}
	}
	if vm, ok := spec["volumeMode"].(string); ok && vm != "Block" && vm != "Filesystem" {
		errs = append(errs, field.NotSupported(p.Child("volumeMode"), vm, []string{"Block", "Filesystem"}))
	}
	ds, hasDS := spec["dataSource"].(map[string]any)
	dsr, hasDSR := spec["dataSourceRef"].(map[string]any)
	if hasDS {
		errs = append(errs, claimDataSource(p.Child("dataSource"), ds, false, opts)...)
	}
	if hasDSR {
		errs = append(errs, claimDataSource(p.Child("dataSourceRef"), dsr, true, opts)...)
	}
	// The bad value of these two is the *field.Path itself, which encoding/json writes as {}.
	if ns, ok := dsr["namespace"].(string); hasDSR && ok && ns != "" {
		if hasDS {
			errs = append(errs, field.Invalid(p, struct{}{}, "may not be specified when dataSourceRef.namespace is specified"))
		}
	} else if hasDS && hasDSR {
		g1, ok1 := ds["apiGroup"].(string)
		g2, ok2 := dsr["apiGroup"].(string)
		if ok1 != ok2 || g1 != g2 || str(ds, "kind") != str(dsr, "kind") || str(ds, "name") != str(dsr, "name") {
			errs = append(errs, field.Invalid(p, struct{}{}, "must match dataSourceRef"))
		}
	}
	if vac, ok := spec["volumeAttributesClassName"].(string); ok && vac != "" {
		for _, m := range validation.NameIsDNSSubdomain(vac, false) {
			errs = append(errs, field.Invalid(p.Child("volumeAttributesClassName"), vac, m))
		}
	}
	return errs
}

// claimDataSource is validateDataSource (ref false) and validateDataSourceRef.
func claimDataSource(p field.Path, ds map[string]any, ref bool, opts ClaimSpecOptions) field.ErrorList {
	var errs field.ErrorList
	if str(ds, "name") == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	kind := str(ds, "kind")
	if kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	}
	group := str(ds, "apiGroup")
	if group == "" && kind != "PersistentVolumeClaim" {
		errs = append(errs, field.Invalid(p, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
	}
	if group != "" && !opts.AllowInvalidAPIGroupInDataSourceOrRef {
		for _, m := range validation.IsDNS1123Subdomain(group) {
			errs = append(errs, field.Invalid(p.Child("apiGroup"), group, m))
		}
	}
	if ns := str(ds, "namespace"); ref && ns != "" {
		for _, m := range validation.NameIsDNSLabel(ns, false) {
			errs = append(errs, field.Invalid(p.Child("namespace"), ns, m))
		}
	}
	return errs
}

// ClaimSpecWarnings is GetWarningsForPersistentVolumeClaimSpec: a storage request or limit that
// is not a whole number of bytes.
func ClaimSpecWarnings(p field.Path, spec map[string]any) []string {
	var ws []string
	res := mapOf(spec["resources"])
	for _, k := range []string{"requests", "limits"} {
		q, ok := qtyOrZero(mapOf(res[k])["storage"])
		if ok && q.ScaledValue(-3)%1000 != 0 {
			ws = append(ws, fmt.Sprintf("%s: fractional byte value %q is invalid, must be an integer", p.Child("resources", k).Key("storage"), q.String()))
		}
	}
	return ws
}

// internalClaims renders claim templates as the apiserver prints a []core.PersistentVolumeClaim
// bad value: encoding/json over the internal types, which have no JSON tags below the embedded
// TypeMeta and ObjectMeta (Go field names, every field present).
func internalClaims(claims []any) json.RawMessage {
	out := make([]internalClaim, 0, len(claims))
	for _, c := range claims {
		out = append(out, newInternalClaim(mapOf(c)))
	}
	if claims == nil {
		return json.RawMessage("null")
	}
	b, err := json.Marshal(out)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// internalClaim is core.PersistentVolumeClaim: its embedded TypeMeta is empty (conversion does
// not carry an embedded object's kind and apiVersion), so it writes nothing.
type internalClaim struct {
	objectMetaJSON
	Spec   internalClaimSpec
	Status internalClaimStatus
}

// objectMetaJSON is metav1.ObjectMeta's JSON form.
type objectMetaJSON struct {
	Name                       string            `json:"name,omitempty"`
	GenerateName               string            `json:"generateName,omitempty"`
	Namespace                  string            `json:"namespace,omitempty"`
	SelfLink                   string            `json:"selfLink,omitempty"`
	UID                        string            `json:"uid,omitempty"`
	ResourceVersion            string            `json:"resourceVersion,omitempty"`
	Generation                 int64             `json:"generation,omitempty"`
	CreationTimestamp          *string           `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *string           `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string `json:"labels,omitempty"`
	Annotations                map[string]string `json:"annotations,omitempty"`
	OwnerReferences            []ownerRefJSON    `json:"ownerReferences,omitempty"`
	Finalizers                 []string          `json:"finalizers,omitempty"`
	ManagedFields              []any             `json:"managedFields,omitempty"`
}

type ownerRefJSON struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

type internalClaimSpec struct {
	AccessModes               []string
	Selector                  *labelSelectorJSON
	Resources                 internalResources
	VolumeName                string
	StorageClassName          *string
	VolumeMode                *string
	DataSource                *internalDataSource
	DataSourceRef             *internalDataSourceRef
	VolumeAttributesClassName *string
}

type internalResources struct {
	Limits   map[string]string
	Requests map[string]string
}

type internalDataSource struct {
	APIGroup *string
	Kind     string
	Name     string
}

type internalDataSourceRef struct {
	APIGroup  *string
	Kind      string
	Name      string
	Namespace *string
}

type internalClaimStatus struct {
	Phase                            string
	AccessModes                      []string
	Capacity                         map[string]string
	Conditions                       []internalClaimCondition
	AllocatedResources               map[string]string
	AllocatedResourceStatuses        map[string]string
	CurrentVolumeAttributesClassName *string
	ModifyVolumeStatus               *internalModifyVolumeStatus
	HealthStatus                     *internalVolumeHealth
}

type internalClaimCondition struct {
	Type               string
	Status             string
	LastProbeTime      *string
	LastTransitionTime *string
	Reason             string
	Message            string
}

type internalModifyVolumeStatus struct {
	TargetVolumeAttributesClassName string
	Status                          string
}

type internalVolumeHealth struct {
	HealthConditions   []internalHealthCondition
	LastTransitionTime *string
}

type internalHealthCondition struct {
	Status  string
	Reason  string
	Message string
}

func newInternalClaim(c map[string]any) internalClaim {
	md := mapOf(c["metadata"])
	out := internalClaim{objectMetaJSON: newObjectMetaJSON(md)}
	spec := mapOf(c["spec"])
	out.Spec = internalClaimSpec{
		AccessModes:               nilIfEmpty(stringList(spec["accessModes"])),
		Resources:                 internalResources{Limits: quantityMap(mapOf(spec["resources"])["limits"]), Requests: quantityMap(mapOf(spec["resources"])["requests"])},
		VolumeName:                str(spec, "volumeName"),
		StorageClassName:          optString(spec, "storageClassName"),
		VolumeMode:                optString(spec, "volumeMode"),
		VolumeAttributesClassName: optString(spec, "volumeAttributesClassName"),
	}
	if sel, ok := spec["selector"].(map[string]any); ok {
		out.Spec.Selector = selectorValue(sel, true)
	}
	if ds, ok := spec["dataSource"].(map[string]any); ok {
		out.Spec.DataSource = &internalDataSource{APIGroup: optString(ds, "apiGroup"), Kind: str(ds, "kind"), Name: str(ds, "name")}
	}
	if ds, ok := spec["dataSourceRef"].(map[string]any); ok {
		out.Spec.DataSourceRef = &internalDataSourceRef{APIGroup: optString(ds, "apiGroup"), Kind: str(ds, "kind"), Name: str(ds, "name"), Namespace: optString(ds, "namespace")}
	}
	st := mapOf(c["status"])
	out.Status = internalClaimStatus{
		Phase:                            str(st, "phase"),
		AccessModes:                      nilIfEmpty(stringList(st["accessModes"])),
		Capacity:                         quantityMap(st["capacity"]),
		AllocatedResources:               quantityMap(st["allocatedResources"]),
		CurrentVolumeAttributesClassName: optString(st, "currentVolumeAttributesClassName"),
	}
	if m := stringMap(st["allocatedResourceStatuses"]); len(m) > 0 {
		out.Status.AllocatedResourceStatuses = m
	}
	for _, x := range listOf(st["conditions"]) {
		cm := mapOf(x)
		out.Status.Conditions = append(out.Status.Conditions, internalClaimCondition{Type: str(cm, "type"), Status: str(cm, "status"),
			LastProbeTime: optString(cm, "lastProbeTime"), LastTransitionTime: optString(cm, "lastTransitionTime"), Reason: str(cm, "reason"), Message: str(cm, "message")})
	}
	if mv, ok := st["modifyVolumeStatus"].(map[string]any); ok {
		out.Status.ModifyVolumeStatus = &internalModifyVolumeStatus{TargetVolumeAttributesClassName: str(mv, "targetVolumeAttributesClassName"), Status: str(mv, "status")}
	}
	if hs, ok := st["healthStatus"].(map[string]any); ok {
		h := &internalVolumeHealth{LastTransitionTime: optString(hs, "lastTransitionTime")}
		for _, x := range listOf(hs["healthConditions"]) {
			hc := mapOf(x)
			h.HealthConditions = append(h.HealthConditions, internalHealthCondition{Status: str(hc, "status"), Reason: str(hc, "reason"), Message: str(hc, "message")})
		}
		out.Status.HealthStatus = h
	}
	return out
}

func newObjectMetaJSON(md map[string]any) objectMetaJSON {
	out := objectMetaJSON{Name: str(md, "name"), GenerateName: str(md, "generateName"), Namespace: str(md, "namespace"),
		SelfLink: str(md, "selfLink"), UID: str(md, "uid"), ResourceVersion: str(md, "resourceVersion"),
		CreationTimestamp: optString(md, "creationTimestamp"), DeletionTimestamp: optString(md, "deletionTimestamp")}
	if out.CreationTimestamp != nil && *out.CreationTimestamp == "" {
		out.CreationTimestamp = nil
	}
	out.Generation, _ = integer(md, "generation")
	if v, ok := integer(md, "deletionGracePeriodSeconds"); ok {
		out.DeletionGracePeriodSeconds = &v
	}
	if l := stringMap(md["labels"]); len(l) > 0 {
		out.Labels = l
	}
	if a := stringMap(md["annotations"]); len(a) > 0 {
		out.Annotations = a
	}
	for _, x := range listOf(md["ownerReferences"]) {
		r := mapOf(x)
		ref := ownerRefJSON{APIVersion: str(r, "apiVersion"), Kind: str(r, "kind"), Name: str(r, "name"), UID: str(r, "uid")}
		if b, ok := boolean(r, "controller"); ok {
			ref.Controller = &b
		}
		if b, ok := boolean(r, "blockOwnerDeletion"); ok {
			ref.BlockOwnerDeletion = &b
		}
		out.OwnerReferences = append(out.OwnerReferences, ref)
	}
	out.Finalizers = nilIfEmpty(stringList(md["finalizers"]))
	if mf := listOf(md["managedFields"]); len(mf) > 0 {
		out.ManagedFields = mf
	}
	return out
}

// quantityMap is a ResourceList as encoding/json writes it: each quantity in canonical form,
// nil when empty.
func quantityMap(v any) map[string]string {
	m := mapOf(v)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		if q, ok := qty(x); ok {
			out[k] = q.String()
		} else {
			out[k] = quantity.FromInt64(0, quantity.DecimalSI).String()
		}
	}
	return out
}

func optString(m map[string]any, key string) *string {
	s, ok := m[key].(string)
	if !ok {
		return nil
	}
	return &s
}

func nilIfEmpty(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	return l
}
