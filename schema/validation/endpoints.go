package validation

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// Endpoints (core) and EndpointSlice (discovery.k8s.io), as ValidateEndpoints and
// pkg/apis/discovery/validation with their strategies. EndpointSlice's enforced declarative
// rules (1.37, beta: addressType required, an enumeration and immutable; each endpoint's
// addresses required, at most 100) come after the hand-written errors.

var endpointProtocols = []string{"SCTP", "TCP", "UDP"}

func validateEndpoints(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	return distinct(append(errs, endpointSubsets(obj["subsets"])...))
}

func validateEndpointsUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	errs = append(errs, coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)...)
	// A stored object's subsets, kept as they are, are not validated again.
	if !semanticEqual(emptyToNil(obj["subsets"]), emptyToNil(old["subsets"])) {
		errs = append(errs, endpointSubsets(obj["subsets"])...)
	}
	return distinct(errs)
}

// emptyToNil makes an empty list the absent one (apiequality.Semantic.DeepEqual on decoded
// slices: [] and null decode alike).
func emptyToNil(v any) any {
	if l, ok := v.([]any); ok && len(l) == 0 {
		return nil
	}
	return v
}

func endpointSubsets(v any) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("subsets")
	for i, raw := range listOf(v) {
		ss := mapOf(raw)
		sp := p.Index(i)
		addrs, notReady := listOf(ss["addresses"]), listOf(ss["notReadyAddresses"])
		if len(addrs) == 0 && len(notReady) == 0 {
			errs = append(errs, field.Required(sp, "must specify `addresses` or `notReadyAddresses`"))
		}
		for j, a := range addrs {
			errs = append(errs, endpointAddress(sp.Child("addresses").Index(j), mapOf(a))...)
		}
		for j, a := range notReady {
			errs = append(errs, endpointAddress(sp.Child("notReadyAddresses").Index(j), mapOf(a))...)
		}
		ports := listOf(ss["ports"])
		for j, raw := range ports {
			errs = append(errs, endpointPort(sp.Child("ports").Index(j), mapOf(raw), len(ports) > 1)...)
		}
	}
	return errs
}

func endpointAddress(p field.Path, a map[string]any) field.ErrorList {
	ip := str(a, "ip")
	errs := legacyIP(p.Child("ip"), ip)
	if h := str(a, "hostname"); h != "" {
		errs = append(errs, invalids(p.Child("hostname"), h, validation.IsDNS1123Label(h))...)
	}
	if n, ok := a["nodeName"].(string); ok {
		errs = append(errs, invalids(p.Child("nodeName"), n, validation.NameIsDNSSubdomain(n, false))...)
	}
	return append(errs, endpointIP(p.Child("ip"), ip)...)
}

func endpointPort(p field.Path, port map[string]any, requireName bool) field.ErrorList {
	var errs field.ErrorList
	name := str(port, "name")
	if requireName && name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else if name != "" {
		errs = append(errs, invalids(p.Child("name"), name, validation.IsDNS1123Label(name))...)
	}
	n, _ := integer(port, "port")
	errs = append(errs, invalids(p.Child("port"), n, validation.IsValidPortNum(n))...)
	switch proto := str(port, "protocol"); proto {
	case "":
		errs = append(errs, field.Required(p.Child("protocol"), ""))
	case "TCP", "UDP", "SCTP":
	default:
		errs = append(errs, field.NotSupported(p.Child("protocol"), proto, endpointProtocols))
	}
	if ap, ok := port["appProtocol"].(string); ok {
		errs = append(errs, qualifiedName(p.Child("appProtocol"), ap)...)
	}
	return errs
}

// endpointsWarnings is the strategy's warnings on create and update: non-standard addresses,
// unless the endpoints controller manages the object.
func endpointsWarnings(obj, _ map[string]any, _ Options) []string {
	if stringMap(mapOf(obj["metadata"])["labels"])["endpoints.kubernetes.io/managed-by"] == "endpoint-controller" {
		return nil
	}
	var out []string
	p := field.NewPath("subsets")
	for i, raw := range listOf(obj["subsets"]) {
		ss := mapOf(raw)
		for _, key := range []string{"addresses", "notReadyAddresses"} {
			for j, a := range listOf(ss[key]) {
				out = append(out, ipWarnings(p.Index(i).Child(key).Index(j).Child("ip"), str(mapOf(a), "ip"))...)
			}
		}
	}
	return out
}

func validateEndpointSlice(obj map[string]any, _ Options) field.ErrorList {
	return withDeclarative(endpointSliceRules(obj, nil), endpointSliceDeclarative(obj, nil))
}

func validateEndpointSliceUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	return withDeclarative(endpointSliceRules(obj, old), endpointSliceDeclarative(obj, old))
}

// endpointSliceRules is ValidateEndpointSlice without the declarative rules (the address type's
// and the addresses' count).
func endpointSliceRules(obj, old map[string]any) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	// The hand-written address type errors give way to the declarative ones that match them
	// (rest's FilterCoveredHandwrittenErrors); a changed type's declarative check stops at
	// immutability, so an unknown new type keeps its hand-written NotSupported.
	if at := str(obj, "addressType"); old != nil && at != str(old, "addressType") && at != "" && at != "FQDN" && at != "IPv4" && at != "IPv6" {
		errs = append(errs, field.NotSupported(field.NewPath("addressType"), at, []string{"FQDN", "IPv4", "IPv6"}))
	}
	errs = append(errs, endpointSlicePorts(listOf(obj["ports"]))...)
	if old == nil || !semanticEqual(emptyToNil(obj["endpoints"]), emptyToNil(old["endpoints"])) {
		errs = append(errs, endpointSliceEndpoints(listOf(obj["endpoints"]), str(obj, "addressType"))...)
	}
	return errs
}

func endpointSlicePorts(ports []any) field.ErrorList {
	p := field.NewPath("ports")
	if len(ports) > 20000 {
		return field.ErrorList{field.TooMany(p, len(ports), 20000)}
	}
	var errs field.ErrorList
	seen := make(map[string]bool, len(ports))
	for i, raw := range ports {
		port := mapOf(raw)
		ip := p.Index(i)
		name := str(port, "name")
		if name != "" {
			errs = append(errs, invalids(ip.Child("name"), name, validation.IsDNS1123Label(name))...)
		}
		if seen[name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), name))
		}
		seen[name] = true
		if proto, ok := port["protocol"].(string); !ok {
			errs = append(errs, field.Required(ip.Child("protocol"), ""))
		} else if proto != "TCP" && proto != "UDP" && proto != "SCTP" {
			errs = append(errs, field.NotSupported(ip.Child("protocol"), proto, endpointProtocols))
		}
		if ap, ok := port["appProtocol"].(string); ok {
			errs = append(errs, qualifiedName(ip.Child("appProtocol"), ap)...)
		}
	}
	return errs
}

func endpointSliceEndpoints(endpoints []any, addressType string) field.ErrorList {
	p := field.NewPath("endpoints")
	if len(endpoints) > 1000 {
		return field.ErrorList{field.TooMany(p, len(endpoints), 1000)}
	}
	var errs field.ErrorList
	for i, raw := range endpoints {
		ep := mapOf(raw)
		ip := p.Index(i)
		ap := ip.Child("addresses")
		for j, a := range stringList(ep["addresses"]) {
			errs = append(errs, sliceAddress(ap, j, a, addressType)...)
		}
		if n, ok := ep["nodeName"].(string); ok {
			errs = append(errs, invalids(ip.Child("nodeName"), n, validation.NameIsDNSSubdomain(n, false))...)
		}
		tp := ip.Child("deprecatedTopology")
		topology := mapOf(ep["deprecatedTopology"])
		if len(topology) > 16 {
			errs = append(errs, field.TooMany(tp, len(topology), 16))
		}
		errs = append(errs, schema.ValidateLabels(stringMap(topology), tp)...)
		if _, ok := topology["topology.kubernetes.io/zone"]; ok {
			errs = append(errs, field.InternalError(tp.Key("topology.kubernetes.io/zone"), fmt.Errorf("reserved key was not removed in conversion")))
		}
		if h, ok := ep["hostname"].(string); ok {
			errs = append(errs, invalids(ip.Child("hostname"), h, validation.IsDNS1123Label(h))...)
		}
		if hints, ok := ep["hints"].(map[string]any); ok {
			errs = append(errs, endpointHints(ip.Child("hints"), hints)...)
		}
	}
	return errs
}

// sliceAddress checks the j-th address of an endpoint (at p, the addresses) as the slice's type.
func sliceAddress(p field.Path, j int, a, addressType string) field.ErrorList {
	pj := p.Index(j)
	switch addressType {
	case "IPv4":
		if errs := legacyIP(pj, a); len(errs) > 0 {
			return errs
		}
		var errs field.ErrorList
		if parseIPSloppy(a).To4() == nil {
			errs = append(errs, field.Invalid(p, a, "must be an IPv4 address"))
		}
		return append(errs, endpointIP(pj, a)...)
	case "IPv6":
		if errs := strictIP(pj, a); len(errs) > 0 {
			return errs
		}
		var errs field.ErrorList
		if parseIPSloppy(a).To4() != nil {
			errs = append(errs, field.Invalid(p, a, "must be an IPv6 address"))
		}
		return append(errs, endpointIP(pj, a)...)
	case "FQDN":
		return fullyQualifiedDomainName(pj, a)
	}
	return nil
}

// strictIP is apimachinery's IsValidIP: a legacy-valid address in canonical form.
func strictIP(p field.Path, v string) field.ErrorList {
	if errs := legacyIP(p, v); len(errs) > 0 {
		return errs
	}
	if s := parseIPSloppy(v).String(); s != v {
		return field.ErrorList{field.Invalid(p, v, fmt.Sprintf("must be in canonical form (%q)", s))}
	}
	return nil
}

// fullyQualifiedDomainName is apimachinery's IsFullyQualifiedDomainName.
func fullyQualifiedDomainName(p field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	name = strings.TrimSuffix(name, ".")
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(p, name, strings.Join(msgs, ","))}
	}
	labels := strings.Split(name, ".")
	if len(labels) < 2 {
		return field.ErrorList{field.Invalid(p, name, "should be a domain with at least two segments separated by dots")}
	}
	for _, label := range labels {
		if msgs := validation.IsDNS1123Label(label); len(msgs) > 0 {
			return field.ErrorList{field.Invalid(p, label, strings.Join(msgs, ","))}
		}
	}
	return nil
}

func endpointHints(p field.Path, hints map[string]any) field.ErrorList {
	var errs field.ErrorList
	for _, h := range []struct {
		key   string
		check func(string) []string
	}{
		{"forZones", validation.IsValidLabelValue},
		{"forNodes", func(n string) []string { return validation.NameIsDNSSubdomain(n, false) }},
	} {
		hp := p.Child(h.key)
		list := listOf(hints[h.key])
		if len(list) > 8 {
			return append(errs, field.TooMany(hp, len(list), 8))
		}
		seen := make(map[string]bool, len(list))
		for i, raw := range list {
			np := hp.Index(i).Child("name")
			name := str(mapOf(raw), "name")
			if seen[name] {
				errs = append(errs, field.Duplicate(np, name))
			}
			seen[name] = true
			errs = append(errs, invalids(np, name, h.check(name))...)
		}
	}
	return errs
}

// endpointSliceDeclarative is the declarative rules: addressType (required; on create one of
// the enumeration, on update unchanged), then each endpoint's addresses (required, at most 100),
// unless the endpoints are the stored ones.
func endpointSliceDeclarative(obj, old map[string]any) field.ErrorList {
	var errs field.ErrorList
	at := str(obj, "addressType")
	tp := field.NewPath("addressType")
	switch {
	case old != nil && at == str(old, "addressType"):
	case at == "":
		errs = append(errs, field.Required(tp, ""))
		if old != nil {
			// Required and immutable are two rules: clearing a stored addressType breaks both.
			errs = append(errs, field.Invalid(tp, nil, "field is immutable"))
		}
	case old != nil:
		errs = append(errs, field.Invalid(tp, nil, "field is immutable"))
	case at != "FQDN" && at != "IPv4" && at != "IPv6":
		errs = append(errs, field.NotSupported(tp, at, []string{"FQDN", "IPv4", "IPv6"}))
	}
	if old != nil && semanticEqual(emptyToNil(obj["endpoints"]), emptyToNil(old["endpoints"])) {
		return errs
	}
	p := field.NewPath("endpoints")
	for i, raw := range listOf(obj["endpoints"]) {
		n := len(listOf(mapOf(raw)["addresses"]))
		switch {
		case n == 0:
			errs = append(errs, field.Required(p.Index(i).Child("addresses"), ""))
		case n > 100:
			errs = append(errs, field.TooMany(p.Index(i).Child("addresses"), n, 100))
		}
	}
	return errs
}

// endpointSliceWarnings is the strategy's warnings: on create a deprecated FQDN address type,
// on create and update non-standard addresses unless an EndpointSlice controller manages the
// slice.
func endpointSliceWarnings(obj, old map[string]any, _ Options) []string {
	var out []string
	if old == nil && str(obj, "addressType") == "FQDN" {
		out = append(out, "spec.addressType: FQDN endpoints are deprecated")
	}
	switch stringMap(mapOf(obj["metadata"])["labels"])["endpointslice.kubernetes.io/managed-by"] {
	case "endpointslice-controller.k8s.io", "endpointslicemirroring-controller.k8s.io":
		return out
	}
	p := field.NewPath("endpoints")
	for i, raw := range listOf(obj["endpoints"]) {
		for j, a := range stringList(mapOf(raw)["addresses"]) {
			out = append(out, ipWarnings(p.Index(i).Child("addresses").Index(j), a)...)
		}
	}
	return out
}

// prepareEndpointSliceCreate is the strategy's PrepareForCreate beyond the generation: v1 has
// no deprecatedTopology to store (dropTopologyOnV1; v1beta1, which kept it, is no longer
// served).
func prepareEndpointSliceCreate(obj map[string]any, _ Options) map[string]any {
	return dropTopology(obj, nil)
}

// prepareEndpointSliceUpdate is PrepareForUpdate's dropTopologyOnV1: unless the endpoints are
// the stored ones, each endpoint's deprecatedTopology is dropped, its kubernetes.io/hostname
// becoming nodeName when the endpoint has none and the stored slice named that node so.
func prepareEndpointSliceUpdate(obj, old map[string]any, _ Options) map[string]any {
	if semanticEqual(emptyToNil(obj["endpoints"]), emptyToNil(old["endpoints"])) {
		return obj
	}
	return dropTopology(obj, old)
}

func dropTopology(obj, old map[string]any) map[string]any {
	endpoints := listOf(obj["endpoints"])
	changed := false
	for _, raw := range endpoints {
		if _, ok := mapOf(raw)["deprecatedTopology"]; ok {
			changed = true
			break
		}
	}
	if !changed {
		return obj
	}
	var prevNodes map[string]bool
	for _, raw := range listOf(old["endpoints"]) {
		if n := stringMap(mapOf(raw)["deprecatedTopology"])["kubernetes.io/hostname"]; n != "" {
			if prevNodes == nil {
				prevNodes = map[string]bool{}
			}
			prevNodes[n] = true
		}
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	list := make([]any, len(endpoints))
	for i, raw := range endpoints {
		ep, ok := raw.(map[string]any)
		if !ok {
			list[i] = raw
			continue
		}
		if _, has := ep["deprecatedTopology"]; !has {
			list[i] = ep
			continue
		}
		c := make(map[string]any, len(ep))
		for k, v := range ep {
			c[k] = v
		}
		host, hasHost := stringMap(ep["deprecatedTopology"])["kubernetes.io/hostname"]
		if _, hasNode := ep["nodeName"].(string); !hasNode && hasHost && prevNodes[host] && len(validation.NameIsDNSSubdomain(host, false)) == 0 {
			c["nodeName"] = host
		}
		delete(c, "deprecatedTopology")
		list[i] = c
	}
	out["endpoints"] = list
	return out
}
