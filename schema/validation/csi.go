package validation

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// The CSI kinds of storage.k8s.io (CSIDriver, CSINode, CSIStorageCapacity, VolumeAttachment) and
// VolumeAttributesClass, as pkg/apis/storage/validation and their strategies validate them, with
// 1.37's feature gates at their defaults (SELinuxMountReadWriteOncePod, MutableCSINodeAllocatableCount,
// CSIServiceAccountTokenSecrets and VolumeLimitScaling on; CSIVolumeHealth off) and the
// declarative rules it enforces (beta): a VolumeAttachment's spec immutable and its attacher
// required, a caseless DNS subdomain, at most 63 characters.

// CSIDriver: the spec's required booleans (defaulted, so absent only when a client sends null
// past the defaults), the fsGroupPolicy, token requests, lifecycle modes; attachRequired and
// volumeLifecycleModes immutable (the latter's declarative rule is alpha: the hand-written one
// stands).

func validateCSIDriver(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	return distinct(append(errs, csiDriverSpec(mapOf(obj["spec"]))...))
}

func validateCSIDriverUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	errs = append(errs, csiDriverSpec(spec)...)
	p := field.NewPath("spec")
	errs = append(errs, immutable(p.Child("attachedRequired"), spec["attachRequired"], oldSpec["attachRequired"])...)
	errs = append(errs, immutable(p.Child("volumeLifecycleModes"), emptyToNilList(spec["volumeLifecycleModes"]), emptyToNilList(oldSpec["volumeLifecycleModes"]))...)
	return distinct(errs)
}

func csiDriverSpec(spec map[string]any) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec")
	// The hand-written rule names attachRequired "attachedRequired".
	for _, f := range [][2]string{{"attachRequired", "attachedRequired"}, {"podInfoOnMount", "podInfoOnMount"}, {"storageCapacity", "storageCapacity"}} {
		if !has(spec, f[0]) {
			errs = append(errs, field.Required(p.Child(f[1]), ""))
		}
	}
	if v, ok := spec["fsGroupPolicy"].(string); ok && v != "File" && v != "None" && v != "ReadWriteOnceWithFSType" {
		errs = append(errs, field.NotSupported(p.Child("fsGroupPolicy"), v, []string{"File", "None", "ReadWriteOnceWithFSType"}))
	}
	tokenRequests := listOf(spec["tokenRequests"])
	errs = append(errs, csiTokenRequests(p.Child("tokenRequests"), tokenRequests)...)
	for _, m := range stringList(spec["volumeLifecycleModes"]) {
		if m != "Persistent" && m != "Ephemeral" {
			errs = append(errs, field.NotSupported(p.Child("volumeLifecycleModes"), m, []string{"Persistent", "Ephemeral"}))
		}
	}
	if !has(spec, "seLinuxMount") {
		errs = append(errs, field.Required(p.Child("seLinuxMount"), ""))
	}
	if v, ok := integer(spec, "nodeAllocatableUpdatePeriodSeconds"); ok && v < 10 {
		errs = append(errs, field.Invalid(p.Child("nodeAllocatableUpdatePeriodSeconds"), v, "must be greater than or equal to 10 seconds"))
	}
	if b, ok := spec["serviceAccountTokenInSecrets"].(bool); ok && len(tokenRequests) == 0 {
		errs = append(errs, field.Invalid(p.Child("serviceAccountTokenInSecrets"), b, "serviceAccountTokenInSecrets is set but no tokenRequests are specified"))
	}
	if !has(spec, "preventPodSchedulingIfMissing") {
		errs = append(errs, field.Required(p.Child("preventPodSchedulingIfMissing"), ""))
	}
	return errs
}

// csiTokenRequests is validateTokenRequests: one request per audience (a repeated audience's
// request is not checked further), expirations between 10 minutes and 2^32 seconds.
func csiTokenRequests(p field.Path, reqs []any) field.ErrorList {
	var errs field.ErrorList
	audiences := make(map[string]bool, len(reqs))
	for i, raw := range reqs {
		r := mapOf(raw)
		ip := p.Index(i)
		aud := str(r, "audience")
		if audiences[aud] {
			errs = append(errs, field.Duplicate(ip.Child("audience"), aud))
			continue
		}
		audiences[aud] = true
		secs, ok := integer(r, "expirationSeconds")
		if !ok || r["expirationSeconds"] == nil {
			continue
		}
		if secs < 600 {
			errs = append(errs, field.Invalid(ip.Child("expirationSeconds"), secs, "may not specify a duration less than 10 minutes"))
		}
		if secs > 1<<32 {
			errs = append(errs, field.Invalid(ip.Child("expirationSeconds"), secs, "may not specify a duration larger than 2^32 seconds"))
		}
	}
	return errs
}

const csiTokenSecretsWarning = "spec.serviceAccountTokenInSecrets is unset; if supported by this CSI driver, set to true to prevent possible logging of tokens in volume attributes"

// csiDriverWarnings: token requests without serviceAccountTokenInSecrets (on update, only when
// the token requests changed).
func csiDriverWarnings(obj, old map[string]any, _ Options) []string {
	spec := mapOf(obj["spec"])
	reqs := listOf(spec["tokenRequests"])
	if len(reqs) == 0 || has(spec, "serviceAccountTokenInSecrets") {
		return nil
	}
	if old != nil && semanticEqual(emptyToNilList(spec["tokenRequests"]), emptyToNilList(mapOf(old["spec"])["tokenRequests"])) {
		return nil
	}
	return []string{csiTokenSecretsWarning}
}

// CSINode: its drivers (name, node ID, allocatable count, topology keys); an update may change
// no driver of a name the stored object has, but its allocatable count
// (MutableCSINodeAllocatableCount). The strategy's update validation checks the metadata as on
// create only. Its /status validates status.storageHealth, which PrepareForUpdate drops unless
// the stored object has some (CSIVolumeHealth is off).

func validateCSINode(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	return distinct(append(errs, csiNodeDrivers(field.NewPath("spec", "drivers"), listOf(mapOf(obj["spec"])["drivers"]))...))
}

func validateCSINodeUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	switch opts.Subresource {
	case "status":
		errs := coreObjectMetaUpdate(obj, old)
		return distinct(append(errs, csiNodeStorageHealth(listOf(mapOf(obj["status"])["storageHealth"]))...))
	case "":
	default:
		return nil
	}
	errs := validateCSINode(obj, opts)
	// Each stored driver against the new drivers of its name (names are unique in the stored
	// object, so this is linear in the new list).
	byName := map[string][]map[string]any{}
	for _, raw := range listOf(mapOf(obj["spec"])["drivers"]) {
		d := mapOf(raw)
		byName[str(d, "name")] = append(byName[str(d, "name")], d)
	}
	p := field.NewPath("spec", "drivers")
	for _, raw := range listOf(mapOf(old["spec"])["drivers"]) {
		od := mapOf(raw)
		for _, nd := range byName[str(od, "name")] {
			if !csiNodeDriverEqual(nd, od) {
				errs = append(errs, field.Invalid(p, csiNodeDriverValue(nd), "field is immutable"))
			}
		}
	}
	return distinct(errs)
}

// csiNodeDriverEqual compares two drivers but for their allocatable count.
func csiNodeDriverEqual(a, b map[string]any) bool {
	return str(a, "name") == str(b, "name") && str(a, "nodeID") == str(b, "nodeID") &&
		semanticEqual(emptyToNilList(a["topologyKeys"]), emptyToNilList(b["topologyKeys"]))
}

// csiNodeDriverJSON is the internal CSINodeDriver as the apiserver prints it (its allocatable
// cleared before the comparison).
type csiNodeDriverJSON struct {
	Name         string
	NodeID       string
	TopologyKeys []string
	Allocatable  *struct{}
}

func csiNodeDriverValue(d map[string]any) csiNodeDriverJSON {
	out := csiNodeDriverJSON{Name: str(d, "name"), NodeID: str(d, "nodeID")}
	if l, ok := d["topologyKeys"].([]any); ok {
		out.TopologyKeys = stringList(l)
	}
	return out
}

func csiNodeDrivers(p field.Path, drivers []any) field.ErrorList {
	var errs field.ErrorList
	names := make(map[string]bool, len(drivers))
	for i, raw := range drivers {
		d := mapOf(raw)
		ip := p.Index(i)
		name := str(d, "name")
		errs = append(errs, csiDriverName(ip.Child("name"), name)...)
		id := str(d, "nodeID")
		if id == "" {
			errs = append(errs, field.Required(ip.Child("nodeID"), ""))
		}
		if len(id) > 256 {
			errs = append(errs, field.Invalid(ip.Child("nodeID"), id, "must be 256 characters or less"))
		}
		if n, ok := integer(mapOf(d["allocatable"]), "count"); ok && mapOf(d["allocatable"])["count"] != nil {
			errs = append(errs, nonNegative(ip.Child("allocatable", "count"), n)...)
		}
		if names[name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), name))
		}
		names[name] = true
		keys := map[string]bool{}
		for _, k := range stringList(d["topologyKeys"]) {
			if k == "" {
				errs = append(errs, field.Required(ip, ""))
			}
			if keys[k] {
				errs = append(errs, field.Duplicate(ip, k))
			}
			keys[k] = true
			errs = append(errs, qualifiedName(ip, k)...)
		}
	}
	return errs
}

// csiNodeStorageHealth is ValidateCSINodeStatusUpdate's storage health: a name once, a CSI
// driver name, at most 16 conditions, each condition's status, reason, message, access and
// volume modes.
func csiNodeStorageHealth(health []any) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("status", "storageHealth")
	seen := make(map[string]bool, len(health))
	for i, raw := range health {
		h := mapOf(raw)
		ip := p.Index(i)
		name := str(h, "name")
		if seen[name] {
			errs = append(errs, field.Duplicate(ip, name))
		}
		seen[name] = true
		if name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		} else {
			errs = append(errs, csiDriverName(ip.Child("name"), name)...)
		}
		conds := listOf(h["healthConditions"])
		if len(conds) > 16 {
			errs = append(errs, field.TooMany(ip.Child("healthConditions"), len(conds), 16))
			continue
		}
		for j, c := range conds {
			errs = append(errs, storageHealthCondition(ip.Child("healthConditions").Index(j), mapOf(c))...)
		}
	}
	return errs
}

var storageHealthAccessModes = []string{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}

func storageHealthCondition(p field.Path, c map[string]any) field.ErrorList {
	var errs field.ErrorList
	if s := str(c, "status"); s != "StorageDegraded" && s != "StorageUnreachable" {
		errs = append(errs, field.NotSupported(p.Child("status"), s, []string{"StorageDegraded", "StorageUnreachable"}))
	}
	reason := str(c, "reason")
	if reason == "" {
		errs = append(errs, field.Required(p.Child("reason"), ""))
	} else {
		if !conditionReason.MatchString(reason) {
			errs = append(errs, field.Invalid(p.Child("reason"), reason, conditionReasonMessage))
		}
		if len(reason) > 256 {
			errs = append(errs, field.TooLong(p.Child("reason"), "", 256))
		}
	}
	if len(str(c, "message")) > 1024 {
		errs = append(errs, field.TooLong(p.Child("message"), "", 1024))
	}
	if m, ok := c["accessMode"].(string); ok && !contains(storageHealthAccessModes, m) {
		errs = append(errs, field.NotSupported(p.Child("accessMode"), m, storageHealthAccessModes))
	}
	if m, ok := c["volumeMode"].(string); ok && m != "Filesystem" && m != "Block" {
		errs = append(errs, field.NotSupported(p.Child("volumeMode"), m, []string{"Filesystem", "Block"}))
	}
	return errs
}

// prepareCSINodeUpdate: the /status strategy's dropDisabledCSINodeFields (CSIVolumeHealth is
// off): the new status.storageHealth goes unless the stored object has some.
func prepareCSINodeUpdate(obj, old map[string]any, opts Options) map[string]any {
	st := mapOf(obj["status"])
	if opts.Subresource != "status" || len(listOf(mapOf(old["status"])["storageHealth"])) > 0 {
		return obj
	}
	if _, ok := st["storageHealth"]; !ok {
		return obj
	}
	out := shallowWith(obj, "status", withoutKey(st, "storageHealth"))
	return out
}

// shallowWith is obj with key set to v (obj's other values shared, obj unchanged).
func shallowWith(obj map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(obj)+1)
	for k, x := range obj {
		out[k] = x
	}
	out[key] = v
	return out
}

// withoutKey is m without key (m unchanged).
func withoutKey(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		if k != key {
			out[k] = x
		}
	}
	return out
}

// CSIStorageCapacity: the node topology selector (invalid label values kept by an update of a
// stored selector that has them), the storage class name, a capacity not negative; node
// topology and storage class immutable.

func validateCSIStorageCapacity(obj map[string]any, _ Options) field.ErrorList {
	return distinct(csiStorageCapacity(obj, LabelSelectorOptions{}))
}

func validateCSIStorageCapacityUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	oldTopo, oldHas := old["nodeTopology"].(map[string]any)
	o := LabelSelectorOptions{AllowInvalidLabelValue: oldHas && selectorHasInvalidLabelValue(oldTopo)}
	errs := csiStorageCapacity(obj, o)
	errs = append(errs, coreObjectMetaUpdate(obj, old)...)
	topo, topoHas := obj["nodeTopology"].(map[string]any)
	if topoHas != oldHas || !semanticEqual(topo, oldTopo) {
		errs = append(errs, field.Invalid(field.NewPath("nodeTopology"), selectorValue(topo, topoHas), "field is immutable"))
	}
	if sc := str(obj, "storageClassName"); sc != str(old, "storageClassName") {
		errs = append(errs, field.Invalid(field.NewPath("storageClassName"), sc, "field is immutable"))
	}
	return distinct(errs)
}

func csiStorageCapacity(obj map[string]any, o LabelSelectorOptions) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	if topo, ok := obj["nodeTopology"].(map[string]any); ok {
		errs = append(errs, ValidateLabelSelector(field.NewPath("nodeTopology"), topo, o)...)
	}
	sc := str(obj, "storageClassName")
	errs = append(errs, invalids(field.NewPath("storageClassName"), sc, validation.NameIsDNSSubdomain(sc, false))...)
	if raw, ok := obj["capacity"]; ok && raw != nil {
		if q, ok := qty(raw); ok {
			errs = append(errs, nonNegativeQuantity(field.NewPath("capacity"), q.String(), q.Sign())...)
		}
	}
	return errs
}

// nonNegativeQuantity is ValidateNonnegativeQuantity on a quantity's string and sign.
func nonNegativeQuantity(p field.Path, s string, sign int) field.ErrorList {
	if sign < 0 {
		return field.ErrorList{field.Invalid(p, s, "must be greater than or equal to 0")}
	}
	return nil
}

// csiStorageCapacityWarnings is GetWarningsForCSIStorageCapacity: deprecated node labels in the
// node topology.
func csiStorageCapacityWarnings(obj, _ map[string]any, _ Options) []string {
	topo, ok := obj["nodeTopology"].(map[string]any)
	if !ok {
		return nil
	}
	return labelSelectorNodeWarnings(field.NewPath("nodeTopology"), topo)
}

// labelSelectorNodeWarnings is GetWarningsForNodeSelector on a label selector: a deprecated node
// label as a requirement's key or a matchLabels key. The apiserver ranges over matchLabels in Go
// map order; here in key order.
func labelSelectorNodeWarnings(p field.Path, sel map[string]any) []string {
	var out []string
	for i, raw := range listOf(sel["matchExpressions"]) {
		key := str(mapOf(raw), "key")
		if msg, ok := deprecatedNodeLabels[key]; ok {
			out = append(out, fmt.Sprintf("%s: %s is %s", p.Child("matchExpressions").Index(i).Child("key"), key, msg))
		}
	}
	for _, k := range sortedKeys(mapOf(sel["matchLabels"])) {
		if msg, ok := deprecatedNodeLabels[k]; ok {
			out = append(out, fmt.Sprintf("%s: %s", p.Child("matchLabels", k), msg))
		}
	}
	return out
}

// VolumeAttachment: attacher, source (exactly one of a persistent volume name and an inline
// volume spec, which is validated as an inline PersistentVolumeSpec), node name and status; the
// whole object on every update, its spec immutable (declarative).

func validateVolumeAttachment(obj map[string]any, _ Options) field.ErrorList {
	errs := volumeAttachment(obj, false)
	return withDeclarative(errs, attacherDeclarative(str(mapOf(obj["spec"]), "attacher")))
}

func validateVolumeAttachmentUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	var decl field.ErrorList
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	if !semanticEqual(spec, oldSpec) {
		// The declarative immutability stops the spec's other declarative checks: the
		// hand-written attacher errors stand.
		decl = field.ErrorList{field.Invalid(field.NewPath("spec"), nil, "field is immutable")}
	}
	return withDeclarative(volumeAttachment(obj, decl != nil), decl)
}

// volumeAttachment is ValidateVolumeAttachment; handwrittenAttacher says whether the attacher's
// hand-written errors stay (else the declarative ones replace them).
func volumeAttachment(obj map[string]any, handwrittenAttacher bool) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	spec := mapOf(obj["spec"])
	sp := field.NewPath("spec")
	a := str(spec, "attacher")
	if handwrittenAttacher {
		errs = append(errs, csiDriverName(sp.Child("attacher"), a)...)
	} else if len(a) > 63 && runeCount(a) <= 63 {
		// Longer than 63 bytes, not than 63 characters: the declarative length check does not
		// cover the hand-written one.
		errs = append(errs, field.TooLong(sp.Child("attacher"), "", 63))
	}
	src := mapOf(spec["source"])
	srcP := sp.Child("source")
	_, hasInline := src["inlineVolumeSpec"].(map[string]any)
	pvName, hasPV := src["persistentVolumeName"].(string)
	switch {
	case !hasInline && !hasPV:
		errs = append(errs, field.Required(srcP, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case hasInline && hasPV:
		errs = append(errs, field.Forbidden(srcP, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case hasPV:
		if pvName == "" {
			errs = append(errs, field.Required(srcP.Child("persistentVolumeName"), "must specify non empty persistentVolumeName"))
		}
	default:
		errs = append(errs, pvSpec(srcP.Child("inlineVolumeSpec"), mapOf(src["inlineVolumeSpec"]), "", pvSpecOptions{inline: true})...)
	}
	node := str(spec, "nodeName")
	errs = append(errs, invalids(sp.Child("nodeName"), node, validation.NameIsDNSSubdomain(node, false))...)
	errs = append(errs, volumeAttachmentStatus(mapOf(obj["status"]))...)
	if hasPV {
		errs = append(errs, invalids(srcP.Child("persistentVolumeName"), pvName, validation.NameIsDNSSubdomain(pvName, false))...)
	}
	return errs
}

func volumeAttachmentStatus(st map[string]any) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("status")
	size := 0
	for k, v := range mapOf(st["attachmentMetadata"]) {
		s, _ := v.(string)
		size += len(k) + len(s)
	}
	if size > 256*(1<<10) {
		errs = append(errs, field.TooLong(p.Child("attachmentMetadata"), "", 256*(1<<10)))
	}
	for _, k := range []string{"attachError", "detachError"} {
		e, ok := st[k].(map[string]any)
		if !ok {
			continue
		}
		if len(str(e, "message")) > 1024 {
			errs = append(errs, field.TooLong(p.Child(k, "message"), "", 1024))
		}
		if c, ok := integer(e, "errorCode"); ok && e["errorCode"] != nil && c < 0 {
			errs = append(errs, field.Invalid(p.Child(k, "errorCode"), c, validation.InclusiveRangeError(0, 1<<31-1)))
		}
	}
	return errs
}

// attacherDeclarative is the attacher's declarative rules: required, else a caseless DNS
// subdomain of at most 63 characters.
func attacherDeclarative(a string) field.ErrorList {
	p := field.NewPath("spec", "attacher")
	if a == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	errs := invalids(p, a, validation.IsDNS1123SubdomainCaseless(a))
	if runeCount(a) > 63 {
		errs = append(errs, field.TooLongCharacters(p, a, 63))
	}
	return errs
}

func runeCount(s string) int { return len([]rune(s)) }

// VolumeAttributesClass: the driver name as a provisioner, parameters as a storage class's but
// at least one; on update neither may change (listed before the object's own errors).

func validateVolumeAttributesClass(obj map[string]any, _ Options) field.ErrorList {
	return distinct(volumeAttributesClass(obj))
}

func validateVolumeAttributesClassUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	if str(obj, "driverName") != str(old, "driverName") {
		errs = append(errs, field.Forbidden(field.NewPath("driverName"), "updates to driverName are forbidden."))
	}
	// reflect.DeepEqual of the internal maps: an empty map differs from none, which a v1 body
	// cannot tell apart (omitempty), so both read as absent here.
	if !semanticEqual(emptyToNilMap(obj["parameters"]), emptyToNilMap(old["parameters"])) {
		errs = append(errs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	return distinct(append(errs, volumeAttributesClass(obj)...))
}

func volumeAttributesClass(obj map[string]any) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	p := field.NewPath("driverName")
	if d := str(obj, "driverName"); d == "" {
		errs = append(errs, field.Required(p, ""))
	} else {
		errs = append(errs, qualifiedName(p, strings.ToLower(d))...)
	}
	params := stringMap(obj["parameters"])
	errs = append(errs, provisionerParameters(field.NewPath("parameters"), params)...)
	if len(params) == 0 {
		errs = append(errs, field.Required(field.NewPath("parameters"), "must contain at least one key/value pair"))
	}
	return errs
}
