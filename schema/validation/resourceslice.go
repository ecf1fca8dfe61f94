package validation

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/quantity"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema/gotypes"
)

// ResourceSlice (resource.k8s.io/v1) as pkg/registry/resource/resourceslice's strategy:
// ValidateResourceSlice(Update) merged with 1.37's enforced declarative rules (beta: the
// attributes' value union, counter sets' and counter consumptions' names, sizes and uniqueness,
// taint effects, binding condition counts), which replace the hand-written errors they cover and
// follow every hand-written error. PrepareForCreate and PrepareForUpdate drop what 1.37's
// default gates turn off (DRAListTypeAttributes, DRANodeAllocatableResources,
// DRADeviceCompatibilityGroups, DRAPartitionableDevicesType, DRAOptionalNodeOperations) unless
// the stored slice uses it, which a 1.37 server never stores: the validation of those fields
// (list attribute values aside) is therefore unreachable through the API and not modelled. The
// generation is the registry's (schema's strategy table). Attributes and capacities are
// validated in sorted key order, where the reference ranges over Go maps.

// Limits of a ResourceSlice (pkg/apis/resource).
const (
	sliceMaxDevices                 = 128
	sliceMaxDevicesAdvanced         = 64
	sliceMaxCounterSets             = 8
	sliceMaxCountersPerSet          = 32
	sliceMaxConsumptionsPerDevice   = 2
	sliceMaxCountersPerConsumption  = 32
	sliceMaxAttributesAndCapacities = 32
	sliceMaxAttributeValues         = 48
	sliceAttributeKeyMaxLength      = 63 + 1 + 32
	deviceAttributeMaxValueLength   = 64
	deviceTaintsMaxLength           = 16
	bindingConditionsMaxSize        = 4
	requestPolicyMaxOptions         = 10
)

var (
	sliceSpecType         = goTypeAt("resource.k8s.io", "ResourceSlice", "spec")
	sliceDeviceType       = sliceSpecType.Field("devices").Elem()
	sliceCounterSetType   = sliceSpecType.Field("sharedCounters").Elem()
	sliceConsumptionType  = sliceDeviceType.Field("consumesCounters").Elem()
	sliceNodeSelTermsType = sliceSpecType.Field("nodeSelector").Deref().Field("nodeSelectorTerms")
)

func validateResourceSlice(obj map[string]any, _ Options) field.ErrorList {
	var h handwritten
	h.add(coreObjectMeta(obj, false, validation.NameIsDNSSubdomain), "", false)
	spec := mapOf(obj["spec"])
	resourceSliceSpec(&h, spec, nil)
	var d declarative
	resourceSliceSpecDeclarative(&d, spec, nil, false)
	return merge(h, d)
}

func validateResourceSliceUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	var h handwritten
	h.add(coreObjectMetaUpdate(obj, old), "", false)
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	if oldSpec == nil {
		oldSpec = map[string]any{}
	}
	resourceSliceSpec(&h, spec, oldSpec)
	var d declarative
	if !goSemanticEqual(sliceSpecType, obj["spec"], old["spec"]) {
		resourceSliceSpecDeclarative(&d, spec, oldSpec, true)
	}
	return merge(h, d)
}

// resourceSliceWarnings is WarningsOnCreate and WarningsOnUpdate: a driver name with upper case.
func resourceSliceWarnings(obj, _ map[string]any, _ Options) []string {
	d := str(mapOf(obj["spec"]), "driver")
	if d != strings.ToLower(d) {
		return []string{fmt.Sprintf("spec.driver: driver names should be lowercase; %q contains uppercase characters", d)}
	}
	return nil
}

// resourceSliceSpec is validateResourceSliceSpec; oldSpec is nil on create.
func resourceSliceSpec(h *handwritten, spec, oldSpec map[string]any) {
	p := field.NewPath("spec")
	h.add(csiDriverName(p.Child("driver"), str(spec, "driver")), "", false)
	pool := mapOf(spec["pool"])
	pp := p.Child("pool")
	h.add(resourcePoolName(pp.Child("name"), str(pool, "name")), "format=k8s-resource-pool-name", false)
	if n, _ := integer(pool, "resourceSliceCount"); n <= 0 {
		h.add(field.ErrorList{field.Invalid(pp.Child("resourceSliceCount"), n, "must be greater than zero")}, "", false)
	}
	if g, _ := integer(pool, "generation"); g < 0 {
		h.add(field.ErrorList{field.Invalid(pp.Child("generation"), g, "must be greater than or equal to zero")}, "", false)
	}
	if oldSpec != nil {
		h.add(immutable(pp.Child("name"), str(pool, "name"), str(mapOf(oldSpec["pool"]), "name")), "", false)
		h.add(immutable(p.Child("driver"), str(spec, "driver"), str(oldSpec, "driver")), "", false)
		h.add(immutable(p.Child("nodeName"), spec["nodeName"], oldSpec["nodeName"]), "", false)
	}

	var set []string
	if n, ok := spec["nodeName"].(string); ok {
		if n != "" {
			set = append(set, "`nodeName`")
			h.add(invalids(p.Child("nodeName"), n, validation.NameIsDNSSubdomain(n, false)), "", false)
		} else {
			h.add(field.ErrorList{field.Invalid(p.Child("nodeName"), n, "must be either unset or set to a non-empty string")}, "", false)
		}
	}
	if ns, ok := spec["nodeSelector"].(map[string]any); ok {
		set = append(set, "`nodeSelector`")
		h.add(NodeSelector(p.Child("nodeSelector"), ns, false), "", false)
		if terms := listOf(ns["nodeSelectorTerms"]); len(terms) != 1 {
			h.add(field.ErrorList{field.Invalid(p.Child("nodeSelector", "nodeSelectorTerms"), internalGo(sliceNodeSelTermsType, ns["nodeSelectorTerms"]),
				"must have exactly one node selector term")}, "", false)
		}
	}
	for _, f := range []string{"allNodes", "perDeviceNodeSelection"} {
		if b, ok := spec[f].(bool); ok {
			if b {
				set = append(set, "`"+f+"`")
			} else {
				h.add(field.ErrorList{field.Invalid(p.Child(f), false, "must be either unset or set to true")}, "", false)
			}
		}
	}
	switch len(set) {
	case 0:
		h.add(field.ErrorList{field.Required(p, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required")}, "", false)
	case 1:
	default:
		h.add(field.ErrorList{field.Invalid(p, "{"+strings.Join(set, ", ")+"}",
			"exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set")}, "", false)
	}
	if spec["sharedCounters"] != nil && spec["devices"] != nil {
		h.add(field.ErrorList{field.Invalid(p, "", "only one of `sharedCounters` or `devices` is allowed")}, "", false)
	}

	devices := listOf(spec["devices"])
	dp := p.Child("devices")
	maxDevices := sliceMaxDevices
	if sliceAdvanced(devices) {
		maxDevices = sliceMaxDevicesAdvanced
	}
	if len(devices) > maxDevices {
		h.add(field.ErrorList{field.TooMany(dp, len(devices), maxDevices)}, "maxItems", false)
	} else {
		perDevice, _ := spec["perDeviceNodeSelection"].(bool)
		var oldDevices map[string]map[string]any
		if oldSpec != nil {
			oldDevices = map[string]map[string]any{}
			for _, raw := range listOf(oldSpec["devices"]) {
				if m := mapOf(raw); m != nil {
					if _, dup := oldDevices[str(m, "name")]; !dup {
						oldDevices[str(m, "name")] = m
					}
				}
			}
		}
		for i, raw := range devices {
			dev := mapOf(raw)
			sliceDevice(h, dp.Index(i), dev, oldDevices[str(dev, "name")], perDevice)
		}
		seen := make(map[string]bool, len(devices))
		for i, raw := range devices {
			n := str(mapOf(raw), "name")
			if seen[n] {
				h.add(field.ErrorList{field.Duplicate(dp.Index(i), n)}, "", false)
			}
			seen[n] = true
		}
	}

	sets := listOf(spec["sharedCounters"])
	sp := p.Child("sharedCounters")
	if len(sets) > sliceMaxCounterSets {
		h.add(field.ErrorList{field.TooMany(sp, len(sets), sliceMaxCounterSets)}, "maxItems", true)
		return
	}
	for i, raw := range sets {
		cs := mapOf(raw)
		ip := sp.Index(i)
		counterName(h, ip.Child("name"), str(cs, "name"))
		countersMap(h, ip.Child("counters"), mapOf(cs["counters"]), sliceMaxCountersPerSet)
	}
	seen := make(map[string]bool, len(sets))
	for i, raw := range sets {
		n := str(mapOf(raw), "name")
		if seen[n] {
			h.add(field.ErrorList{field.Duplicate(sp.Index(i), n)}, "", true)
		}
		seen[n] = true
	}
}

// sliceAdvanced: a device with taints, counter consumption or list attribute values lowers the
// limit of devices to 64.
func sliceAdvanced(devices []any) bool {
	for _, raw := range devices {
		d := mapOf(raw)
		if len(listOf(d["taints"])) > 0 || len(listOf(d["consumesCounters"])) > 0 {
			return true
		}
		for _, a := range mapOf(d["attributes"]) {
			for _, f := range attributeListFields {
				if mapOf(a)[f] != nil {
					return true
				}
			}
		}
	}
	return false
}

var (
	attributeScalarFields = []string{"int", "bool", "string", "version"}
	attributeListFields   = []string{"ints", "bools", "strings", "versions"}
)

// counterName is validateCounterName where the declarative rules cover it: required, a DNS label.
func counterName(h *handwritten, p field.Path, n string) {
	if n == "" {
		h.add(field.ErrorList{field.Required(p, "")}, "", true)
		return
	}
	h.add(invalids(p, n, validation.IsDNS1123Label(n)), "format=k8s-short-name", true)
}

// countersMap is a counter set's or a consumption's counters: required, at most max, each key a
// DNS label (covered); any quantity is a valid counter.
func countersMap(h *handwritten, p field.Path, counters map[string]any, max int) {
	if len(counters) == 0 {
		h.add(field.ErrorList{field.Required(p, "")}, "", true)
		return
	}
	if len(counters) > max {
		h.add(field.ErrorList{field.TooMany(p, len(counters), max)}, "", false)
		return
	}
	for _, k := range sortedKeys(counters) {
		h.add(invalids(p, k, validation.IsDNS1123Label(k)), "format=k8s-short-name", true)
	}
}

// sliceDevice is validateDevice; old is the stored device of the same name (nil on create or
// when there is none).
func sliceDevice(h *handwritten, p field.Path, d, old map[string]any, perDevice bool) {
	name := str(d, "name")
	h.add(invalids(p.Child("name"), name, validation.IsDNS1123Label(name)), "format=k8s-short-name", false)
	attrs, caps := mapOf(d["attributes"]), mapOf(d["capacity"])
	if n := len(attrs) + len(caps); n > sliceMaxAttributesAndCapacities {
		h.add(field.ErrorList{field.Invalid(p, int64(n), fmt.Sprintf("the total number of attributes and capacities must not exceed %d", sliceMaxAttributesAndCapacities))}, "", false)
	}
	if n := attributeValueCount(attrs); n > sliceMaxAttributeValues {
		h.add(field.ErrorList{field.Invalid(p, int64(n), fmt.Sprintf("the total number of attribute values must not exceed %d", sliceMaxAttributeValues))}, "", false)
	}
	ap := p.Child("attributes")
	for _, k := range sortedKeys(attrs) {
		h.add(resourceQualifiedName(ap, k), "", false)
		deviceAttribute(h, ap.Key(truncateKey(k, sliceAttributeKeyMaxLength)), mapOf(attrs[k]))
	}
	if old == nil || !goSemanticEqual(sliceDeviceType.Field("capacity"), d["capacity"], old["capacity"]) {
		multi, _ := d["allowMultipleAllocations"].(bool)
		cp := p.Child("capacity")
		for _, k := range sortedKeys(caps) {
			h.add(resourceQualifiedName(cp, k), "", false)
			c := mapOf(caps[k])
			pol, ok := c["requestPolicy"].(map[string]any)
			if !ok {
				continue
			}
			kp := cp.Key(truncateKey(k, sliceAttributeKeyMaxLength)).Child("requestPolicy")
			if !multi {
				h.add(field.ErrorList{field.Forbidden(kp, "allowMultipleAllocations must be true")}, "", false)
				continue
			}
			h.add(capacityRequestPolicy(kp, quantityOrZero(c["value"]), pol), "", false)
		}
	}
	if old == nil || !goSemanticEqual(sliceDeviceType.Field("taints"), d["taints"], old["taints"]) {
		taints := listOf(d["taints"])
		tp := p.Child("taints")
		if len(taints) > deviceTaintsMaxLength {
			h.add(field.ErrorList{field.TooMany(tp, len(taints), deviceTaintsMaxLength)}, "maxItems", false)
		} else {
			for i, raw := range taints {
				sliceDeviceTaint(h, tp.Index(i), mapOf(raw))
			}
		}
	}
	cc := listOf(d["consumesCounters"])
	ccp := p.Child("consumesCounters")
	if len(cc) > sliceMaxConsumptionsPerDevice {
		h.add(field.ErrorList{field.TooMany(ccp, len(cc), sliceMaxConsumptionsPerDevice)}, "maxItems", true)
	} else {
		for i, raw := range cc {
			c := mapOf(raw)
			counterName(h, ccp.Index(i).Child("counterSet"), str(c, "counterSet"))
			countersMap(h, ccp.Index(i).Child("counters"), mapOf(c["counters"]), sliceMaxCountersPerConsumption)
		}
		seen := make(map[string]bool, len(cc))
		for i, raw := range cc {
			n := str(mapOf(raw), "counterSet")
			if seen[n] {
				h.add(field.ErrorList{field.Duplicate(ccp.Index(i), n)}, "", true)
			}
			seen[n] = true
		}
	}
	nodeName, hasNodeName := d["nodeName"].(string)
	nodeSel, hasNodeSel := d["nodeSelector"].(map[string]any)
	allNodes, hasAllNodes := d["allNodes"].(bool)
	if perDevice {
		var set []string
		if hasNodeName {
			if nodeName != "" {
				set = append(set, "`nodeName`")
				h.add(invalids(p.Child("nodeName"), nodeName, validation.NameIsDNSSubdomain(nodeName, false)), "", false)
			} else {
				h.add(field.ErrorList{field.Invalid(p.Child("nodeName"), "", "must not be empty")}, "", false)
			}
		}
		if hasNodeSel {
			set = append(set, "`nodeSelector`")
			h.add(NodeSelector(p.Child("nodeSelector"), nodeSel, false), "", false)
		}
		if hasAllNodes {
			if allNodes {
				set = append(set, "`allNodes`")
			} else {
				h.add(field.ErrorList{field.Invalid(p.Child("allNodes"), false, "must be either unset or set to true")}, "", false)
			}
		}
		const msg = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec"
		switch len(set) {
		case 0:
			h.add(field.ErrorList{field.Required(p, msg)}, "", false)
		case 1:
		default:
			h.add(field.ErrorList{field.Invalid(p, "{"+strings.Join(set, ", ")+"}", msg)}, "", false)
		}
	} else if hasNodeName || hasNodeSel || hasAllNodes {
		h.add(field.ErrorList{field.Invalid(p, nil, "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec")}, "", false)
	}
	bindingParameters(h, p, d)
}

// attributeValueCount is numEntriesDeviceAttribute: a scalar attribute counts one, a list its
// items.
func attributeValueCount(attrs map[string]any) int {
	n := 0
	for _, raw := range attrs {
		a := mapOf(raw)
		items := 0
		for _, f := range attributeListFields {
			items += len(listOf(a[f]))
		}
		if items == 0 {
			n++
			continue
		}
		n += items
	}
	return n
}

// truncateKey is truncateIfTooLong: a key longer than max keeps its ends around "...".
func truncateKey(s string, max int) string {
	if max < 16 {
		max = 16
	}
	if len(s) <= max {
		return s
	}
	rem := max - 3
	return s[:(rem+1)/2] + "..." + s[len(s)-rem/2:]
}

var semverRe = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
	`(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)

// deviceAttribute is validateDeviceAttribute: exactly one value (covered by the declarative
// union), a string at most 64 bytes, a version semver.
func deviceAttribute(h *handwritten, p field.Path, a map[string]any) {
	n := 0
	for _, f := range attributeScalarFields {
		if a[f] != nil {
			n++
		}
	}
	if s, ok := a["string"].(string); ok && len(s) > deviceAttributeMaxValueLength {
		h.add(field.ErrorList{field.TooLong(p.Child("string"), "", deviceAttributeMaxValueLength)}, "", false)
	}
	if v, ok := a["version"].(string); ok {
		h.add(versionValue(p.Child("version"), v), "", false)
	}
	for _, f := range attributeListFields {
		l, ok := a[f].([]any)
		if !ok {
			continue
		}
		n++
		if len(l) == 0 {
			h.add(field.ErrorList{field.Invalid(p.Child(f), l, "must not be empty if specified")}, "", false)
		}
		for i, x := range l {
			s, _ := x.(string)
			switch f {
			case "strings":
				if len(s) > deviceAttributeMaxValueLength {
					h.add(field.ErrorList{field.TooLong(p.Child(f).Index(i), "", deviceAttributeMaxValueLength)}, "maxBytes", true)
				}
			case "versions":
				h.add(versionValue(p.Child(f).Index(i), s), "", false)
			}
		}
	}
	switch {
	case n == 0:
		h.add(field.ErrorList{field.Invalid(p, "", "exactly one value must be specified")}, "union", true)
	case n > 1:
		h.add(field.ErrorList{field.Invalid(p, internalAttribute(a), "exactly one value must be specified")}, "union", true)
	}
}

// internalAttribute is how the reference prints a DeviceAttribute as a bad value: the internal
// struct's Go fields (IntValue, ..., VersionValues) in order, null where unset.
func internalAttribute(a map[string]any) json.RawMessage {
	b := []byte{'{'}
	for i, f := range append(append([]string(nil), attributeScalarFields...), attributeListFields...) {
		if i > 0 {
			b = append(b, ',')
		}
		name := strings.ToUpper(f[:1]) + f[1:]
		if i < len(attributeScalarFields) {
			name += "Value"
		} else {
			name = name[:len(name)-1] + "Values"
		}
		b = strconv.AppendQuote(b, name)
		b = append(b, ':')
		v, err := json.Marshal(a[f])
		if err != nil {
			v = []byte("null")
		}
		b = append(b, v...)
	}
	return append(b, '}')
}

func versionValue(p field.Path, v string) field.ErrorList {
	var errs field.ErrorList
	if !semverRe.MatchString(v) {
		errs = append(errs, field.Invalid(p, v, "must be a string compatible with semver.org spec 2.0.0"))
	}
	if len(v) > deviceAttributeMaxValueLength {
		errs = append(errs, field.TooLong(p, "", deviceAttributeMaxValueLength))
	}
	return errs
}

// sliceDeviceTaint is validateDeviceTaint without a stored taint: the key a label key, the
// value a label value, the effect required and one of the three (covered).
func sliceDeviceTaint(h *handwritten, p field.Path, t map[string]any) {
	h.add(qualifiedName(p.Child("key"), str(t, "key")), "format=k8s-label-key", false)
	if v := str(t, "value"); v != "" {
		h.add(invalids(p.Child("value"), v, validation.IsValidLabelValue(v)), "", false)
	}
	switch e := str(t, "effect"); {
	case e == "":
		h.add(field.ErrorList{field.Required(p.Child("effect"), "")}, "", true)
	case !contains(deviceTaintEffects, e):
		h.add(field.ErrorList{field.NotSupported(p.Child("effect"), e, deviceTaintEffects)}, "", true)
	}
}

// bindingParameters is validateDeviceBindingParameters.
func bindingParameters(h *handwritten, p field.Path, d map[string]any) {
	bc, bfc := stringList(d["bindingConditions"]), stringList(d["bindingFailureConditions"])
	for _, l := range []struct {
		name string
		v    []string
	}{{"bindingConditions", bc}, {"bindingFailureConditions", bfc}} {
		lp := p.Child(l.name)
		if len(l.v) > bindingConditionsMaxSize {
			h.add(field.ErrorList{field.TooMany(lp, len(l.v), bindingConditionsMaxSize)}, "maxItems", true)
			continue
		}
		for i, c := range l.v {
			h.add(qualifiedName(lp.Index(i), c), "format=k8s-label-key", false)
		}
	}
	seen := make(map[string]bool, len(bc))
	for i, c := range bc {
		if seen[c] {
			h.add(field.ErrorList{field.Duplicate(p.Child("bindingConditions").Index(i), c)}, "", false)
		}
		seen[c] = true
	}
	conds := seen
	seen = make(map[string]bool, len(bfc))
	for i, c := range bfc {
		ip := p.Child("bindingFailureConditions").Index(i)
		if seen[c] {
			h.add(field.ErrorList{field.Duplicate(ip, c)}, "", false)
		}
		seen[c] = true
		if conds[c] {
			h.add(field.ErrorList{field.Invalid(ip, c, "bindingFailureConditions must not overlap with bindingConditions")}, "", false)
		}
	}
	if len(bc) == 0 && len(bfc) > 0 {
		h.add(field.ErrorList{field.Invalid(p.Child("bindingConditions"), listOrNull(d["bindingConditions"]), "bindingConditions are required to use bindingFailureConditions")}, "", false)
	}
	if len(bfc) == 0 && len(bc) > 0 {
		h.add(field.ErrorList{field.Invalid(p.Child("bindingFailureConditions"), listOrNull(d["bindingFailureConditions"]), "bindingFailureConditions are required to use bindingConditions")}, "", false)
	}
}

// listOrNull is a list field as a bad value: the list, or null when unset.
func listOrNull(v any) any {
	if l, ok := v.([]any); ok {
		return l
	}
	return nil
}

// resourceQualifiedName is validateQualifiedName: a C identifier of at most 32 bytes, after a
// CSI driver name as the domain when there is one ("a/b/c" is not checked, as the reference
// does not).
func resourceQualifiedName(p field.Path, n string) field.ErrorList {
	var errs field.ErrorList
	parts := strings.Split(n, "/")
	switch len(parts) {
	case 1:
		errs = append(errs, cIdentifier(p, parts[0])...)
	case 2:
		if parts[0] == "" {
			errs = append(errs, field.Invalid(p, "", "the domain must not be empty"))
		} else {
			errs = append(errs, csiDriverName(p, parts[0])...)
		}
		if parts[1] == "" {
			errs = append(errs, field.Invalid(p, "", "the name must not be empty"))
		} else {
			errs = append(errs, cIdentifier(p, parts[1])...)
		}
	}
	return errs
}

// quantityOrZero is a quantity field's value (zero when unset or not a quantity, which the
// typed round trip refuses before validation).
func quantityOrZero(v any) quantity.Quantity {
	q, _ := qty(v)
	return q
}

// capacityRequestPolicy is validateRequestPolicy for a capacity of value max (the
// DRAFractionalCapacityRange gate is off in 1.37: valid values are keyed by their integer
// value, a range is checked in integers).
func capacityRequestPolicy(p field.Path, max quantity.Quantity, pol map[string]any) field.ErrorList {
	vals := listOf(pol["validValues"])
	rng, hasRange := pol["validRange"].(map[string]any)
	if len(vals) > 0 && hasRange {
		return field.ErrorList{field.Forbidden(p, `exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time`)}
	}
	def, hasDef := qty(pol["default"])
	switch {
	case len(vals) > 0:
		if !hasDef {
			return field.ErrorList{field.Required(p.Child("default"), "required when validValues is defined")}
		}
		return requestPolicyValidValues(p.Child("validValues"), def, max, vals)
	case hasRange:
		if !hasDef {
			return field.ErrorList{field.Required(p.Child("default"), "required when validRange is defined")}
		}
		return requestPolicyRange(p.Child("validRange"), def, max, rng)
	}
	return nil
}

func requestPolicyValidValues(p field.Path, def, max quantity.Quantity, raw []any) field.ErrorList {
	var errs field.ErrorList
	vals := make([]quantity.Quantity, len(raw))
	for i, v := range raw {
		vals[i] = quantityOrZero(v)
	}
	for i := 0; i+1 < len(vals); i++ {
		if vals[i].Cmp(vals[i+1]) > 0 {
			errs = append(errs, field.Invalid(p.Index(i+1), vals[i+1].String(), "values must be sorted in ascending order"))
		}
	}
	found := false
	if len(vals) > requestPolicyMaxOptions {
		errs = append(errs, field.TooMany(p, len(vals), requestPolicyMaxOptions))
	} else {
		for i, v := range vals {
			if v.Cmp(max) > 0 {
				errs = append(errs, field.Invalid(p.Index(i), v.String(), "option is larger than capacity value: "+max.String()))
			}
			if v.Cmp(def) == 0 {
				found = true
			}
		}
		seen := make(map[string]bool, len(vals))
		for i, v := range vals {
			k := strconv.FormatInt(v.ScaledValue(0), 10)
			if seen[k] {
				errs = append(errs, field.Duplicate(p.Index(i), k))
			}
			seen[k] = true
		}
	}
	if !found {
		errs = append(errs, field.Invalid(p, def.String(), "default value is not valid according to the requestPolicy"))
	}
	return errs
}

// requestPolicyRange is validateRequestPolicyRange with the integer arithmetic of 1.37's
// default gates.
func requestPolicyRange(p field.Path, def, max quantity.Quantity, r map[string]any) field.ErrorList {
	var errs field.ErrorList
	min, ok := qty(r["min"])
	if !ok {
		return field.ErrorList{field.Required(p.Child("min"), "required when validRange is defined")}
	}
	if min.Cmp(max) > 0 {
		errs = append(errs, field.Invalid(p.Child("min"), min.String(), "min is larger than capacity value: "+max.String()))
	}
	if def.Cmp(min) < 0 {
		errs = append(errs, field.Invalid(p.Child("default"), def.String(), "default is less than min: "+min.String()))
	}
	rmax, hasMax := qty(r["max"])
	if hasMax {
		if min.Cmp(rmax) > 0 {
			errs = append(errs, field.Invalid(p.Child("max"), min.String(), "min is larger than max: "+rmax.String()))
		}
		if rmax.Cmp(max) > 0 {
			errs = append(errs, field.Invalid(p.Child("max"), rmax.String(), "max is larger than capacity value: "+max.String()))
		}
		if def.Cmp(rmax) > 0 {
			errs = append(errs, field.Invalid(p.Child("default"), def.String(), "default is more than max: "+rmax.String()))
		}
	}
	step, hasStep := qty(r["step"])
	if !hasStep {
		return errs
	}
	if step.Sign() <= 0 {
		return append(errs, field.Invalid(p.Child("step"), step.String(), "must be greater than zero"))
	}
	if added, err := min.Add(step); err == nil && added.Cmp(max) > 0 {
		errs = append(errs, field.Invalid(p.Child("step"), step.String(), fmt.Sprintf("one step %s is larger than capacity value: %s", added.String(), max.String())))
	}
	unsafe := false
	maxInt := quantity.FromInt64(math.MaxInt64, quantity.DecimalSI)
	for _, b := range []struct {
		name string
		q    quantity.Quantity
		set  bool
	}{{"default", def, true}, {"min", min, true}, {"max", rmax, hasMax}, {"step", step, true}} {
		switch {
		case !b.set:
		case b.q.Sign() < 0:
			errs = append(errs, field.Invalid(p.Child(b.name), b.q.String(), "must be greater than or equal to 0"))
			unsafe = true
		case b.q.Cmp(maxInt) > 0:
			errs = append(errs, field.Invalid(p.Child(b.name), b.q.String(), "must not be larger than 9223372036854775807"))
			unsafe = true
		}
	}
	if unsafe {
		return errs
	}
	stepOf := func(v quantity.Quantity) field.ErrorList {
		s, m, x := step.ScaledValue(0), min.ScaledValue(0), v.ScaledValue(0)
		if (x-m)%s != 0 {
			return field.ErrorList{field.Invalid(p.Child("step"), v.String(), fmt.Sprintf("value is not a multiple of a given step (%s) from (%s)", step.String(), min.String()))}
		}
		return nil
	}
	errs = append(errs, stepOf(def)...)
	if hasMax {
		errs = append(errs, stepOf(rmax)...)
	}
	return errs
}

// The declarative side: Validate_ResourceSliceSpec. old is the stored spec on an update.

func resourceSliceSpecDeclarative(d *declarative, spec, old map[string]any, update bool) {
	p := field.NewPath("spec")
	if !(update && goSemanticEqual(sliceSpecType.Field("devices"), spec["devices"], old["devices"])) {
		for i, raw := range listOf(spec["devices"]) {
			sliceDeviceDeclarative(d, p.Child("devices").Index(i), mapOf(raw))
		}
	}
	if update && goSemanticEqual(sliceSpecType.Field("sharedCounters"), spec["sharedCounters"], old["sharedCounters"]) {
		return
	}
	sets := listOf(spec["sharedCounters"])
	sp := p.Child("sharedCounters")
	if e := maxItemsDeclarative(sp, sets, sliceMaxCounterSets); e != nil {
		d.add(e, "maxItems")
		return
	}
	d.add(uniqueBy(sp, sets, "name", sliceCounterSetType), "")
	oldSets := listOf(old["sharedCounters"])
	for i, raw := range sets {
		cs := mapOf(raw)
		o, found := byKey(oldSets, "name", str(cs, "name"), update)
		if found && goSemanticEqual(sliceCounterSetType, cs, o) {
			continue
		}
		ip := sp.Index(i)
		if !(found && str(cs, "name") == str(o, "name")) {
			shortNameRequiredDeclarative(d, ip.Child("name"), str(cs, "name"))
		}
		if !(found && goSemanticEqual(sliceCounterSetType.Field("counters"), cs["counters"], o["counters"])) {
			countersDeclarative(d, ip.Child("counters"), mapOf(cs["counters"]), mapOf(o["counters"]))
		}
	}
}

// sliceDeviceDeclarative is Validate_Device (devices are not matched to stored ones: every
// device of a changed list is validated again).
func sliceDeviceDeclarative(d *declarative, p field.Path, dev map[string]any) {
	attrs := mapOf(dev["attributes"])
	for _, k := range sortedKeys(attrs) {
		d.add(attributeUnionDeclarative(p.Child("attributes").Key(k), mapOf(attrs[k])), "union")
	}
	cc := listOf(dev["consumesCounters"])
	ccp := p.Child("consumesCounters")
	if e := maxItemsDeclarative(ccp, cc, sliceMaxConsumptionsPerDevice); e != nil {
		d.add(e, "maxItems")
	} else if len(cc) > 0 {
		d.add(uniqueBy(ccp, cc, "counterSet", sliceConsumptionType), "")
		for i, raw := range cc {
			c := mapOf(raw)
			shortNameRequiredDeclarative(d, ccp.Index(i).Child("counterSet"), str(c, "counterSet"))
			countersDeclarative(d, ccp.Index(i).Child("counters"), mapOf(c["counters"]), nil)
		}
	}
	for i, raw := range listOf(dev["taints"]) {
		ep := p.Child("taints").Index(i).Child("effect")
		switch e := str(mapOf(raw), "effect"); {
		case e == "":
			d.add(field.ErrorList{field.Required(ep, "")}, "")
		case !contains(deviceTaintEffects, e):
			d.add(field.ErrorList{field.NotSupported(ep, e, deviceTaintEffects)}, "")
		}
	}
	for _, f := range []string{"bindingConditions", "bindingFailureConditions"} {
		d.add(maxItemsDeclarative(p.Child(f), listOf(dev[f]), bindingConditionsMaxSize), "maxItems")
	}
}

// attributeUnionDeclarative is the union of DeviceAttribute's eight value fields (a list counts
// when it has items).
func attributeUnionDeclarative(p field.Path, a map[string]any) field.ErrorList {
	var set []string
	for _, f := range attributeScalarFields {
		if a[f] != nil {
			set = append(set, f)
		}
	}
	for _, f := range attributeListFields {
		if len(listOf(a[f])) > 0 {
			set = append(set, f)
		}
	}
	const all = "`int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`"
	switch {
	case len(set) > 1:
		return field.ErrorList{field.Invalid(p, "{"+strings.Join(set, ", ")+"}", "must specify exactly one of: "+all)}
	case len(set) == 0:
		return field.ErrorList{field.Invalid(p, "", "must specify one of: "+all)}
	}
	return nil
}

// shortNameRequiredDeclarative is RequiredValue then ShortName.
func shortNameRequiredDeclarative(d *declarative, p field.Path, n string) {
	if n == "" {
		d.add(field.ErrorList{field.Required(p, "")}, "")
		return
	}
	d.add(invalids(p, n, validation.DNS1123Label(n, validation.ContentMaxLenError)), "format=k8s-short-name")
}

// countersDeclarative is RequiredMap then EachMapKey(ShortName), the key errors at the map; a
// key the stored map (old, on an update of a matched item) has is not validated again.
func countersDeclarative(d *declarative, p field.Path, m, old map[string]any) {
	if len(m) == 0 {
		d.add(field.ErrorList{field.Required(p, "")}, "")
		return
	}
	for _, k := range sortedKeys(m) {
		if _, stored := old[k]; stored {
			continue
		}
		d.add(invalids(p, k, validation.DNS1123Label(k, validation.ContentMaxLenError)), "format=k8s-short-name")
	}
}

// uniqueBy is ValSliceUnique over a list keyed by key: a later item of a key already listed is
// a Duplicate, with the item (as the v1 struct prints) as its value.
func uniqueBy(p field.Path, l []any, key string, t gotypes.Type) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]bool, len(l))
	for i, x := range l {
		n := str(mapOf(x), key)
		if seen[n] {
			errs = append(errs, field.Duplicate(p.Index(i), v1JSON(t, x)))
		}
		seen[n] = true
	}
	return errs
}

// byKey finds the item of l whose key is v (the list-map match of EachValSliceVal).
func byKey(l []any, key, v string, oldSet bool) (map[string]any, bool) {
	if !oldSet {
		return nil, false
	}
	for _, x := range l {
		if m := mapOf(x); str(m, key) == v {
			return m, true
		}
	}
	return nil, false
}

// PrepareForCreate and PrepareForUpdate: dropDisabledFields with 1.37's default gates.

func prepareResourceSliceCreate(obj map[string]any, _ Options) map[string]any {
	return dropDisabledSliceFields(obj, nil)
}

func prepareResourceSliceUpdate(obj, old map[string]any, _ Options) map[string]any {
	return dropDisabledSliceFields(obj, old)
}

// dropDisabledSliceFields removes partitionTypeAttribute, skipNodeOperations, each device's
// nodeAllocatableResources, its consumptions' compatibilityGroups and its attributes' list
// values, each unless old uses it; obj is returned unchanged when there is nothing to drop.
func dropDisabledSliceFields(obj, old map[string]any) map[string]any {
	spec := mapOf(obj["spec"])
	oldSpec := mapOf(old["spec"])
	oldDevices := listOf(oldSpec["devices"])
	keepPartition := oldSpec["partitionTypeAttribute"] != nil
	keepSkip := len(listOf(oldSpec["skipNodeOperations"])) > 0
	keepAllocatable, keepGroups, keepLists := false, false, false
	for _, raw := range oldDevices {
		dv := mapOf(raw)
		keepAllocatable = keepAllocatable || len(mapOf(dv["nodeAllocatableResources"])) > 0
		for _, c := range listOf(dv["consumesCounters"]) {
			keepGroups = keepGroups || len(listOf(mapOf(c)["compatibilityGroups"])) > 0
		}
		for _, a := range mapOf(dv["attributes"]) {
			for _, f := range attributeListFields {
				keepLists = keepLists || mapOf(a)[f] != nil
			}
		}
	}
	drop := func(m map[string]any, k string, keep bool) bool {
		_, ok := m[k]
		return ok && !keep
	}
	needed := drop(spec, "partitionTypeAttribute", keepPartition) || drop(spec, "skipNodeOperations", keepSkip)
	for _, raw := range listOf(spec["devices"]) {
		dv := mapOf(raw)
		needed = needed || drop(dv, "nodeAllocatableResources", keepAllocatable)
		for _, c := range listOf(dv["consumesCounters"]) {
			needed = needed || drop(mapOf(c), "compatibilityGroups", keepGroups)
		}
		for _, a := range mapOf(dv["attributes"]) {
			for _, f := range attributeListFields {
				needed = needed || drop(mapOf(a), f, keepLists)
			}
		}
	}
	if !needed {
		return obj
	}
	out := copyMap(obj)
	s := copyMap(spec)
	out["spec"] = s
	if !keepPartition {
		delete(s, "partitionTypeAttribute")
	}
	if !keepSkip {
		delete(s, "skipNodeOperations")
	}
	if devices, ok := s["devices"].([]any); ok {
		nd := make([]any, len(devices))
		for i, raw := range devices {
			dv, ok := raw.(map[string]any)
			if !ok {
				nd[i] = raw
				continue
			}
			dv = copyMap(dv)
			if !keepAllocatable {
				delete(dv, "nodeAllocatableResources")
			}
			if cc, ok := dv["consumesCounters"].([]any); ok && !keepGroups {
				ncc := make([]any, len(cc))
				for j, c := range cc {
					if m, ok := c.(map[string]any); ok {
						m = copyMap(m)
						delete(m, "compatibilityGroups")
						c = m
					}
					ncc[j] = c
				}
				dv["consumesCounters"] = ncc
			}
			if attrs, ok := dv["attributes"].(map[string]any); ok && !keepLists {
				na := make(map[string]any, len(attrs))
				for k, a := range attrs {
					if m, ok := a.(map[string]any); ok {
						m = copyMap(m)
						for _, f := range attributeListFields {
							delete(m, f)
						}
						a = m
					}
					na[k] = a
				}
				dv["attributes"] = na
			}
			nd[i] = dv
		}
		s["devices"] = nd
	}
	return out
}
