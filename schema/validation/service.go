package validation

import (
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// Service: pkg/registry/core/service's strategy over ValidateServiceCreate and
// ValidateServiceUpdate (feature gates at their 1.37 defaults: RelaxedServiceNameValidation off,
// StrictIPCIDRValidation on, PreferSameTrafficDistribution on). Not modelled: the /status
// strategy's load-balancer status rules and warnings.

type service struct {
	obj, spec map[string]any
	typ       string
	ips       []string
	families  []string
}

func newService(obj map[string]any) service {
	spec := mapOf(obj["spec"])
	return service{obj: obj, spec: spec, typ: str(spec, "type"), ips: goStringList(spec["clusterIPs"]), families: goStringList(spec["ipFamilies"])}
}

func (s service) headless() bool { return len(s.ips) == 1 && s.ips[0] == "None" }

func (s service) externallyAccessible() bool {
	return s.typ == "LoadBalancer" || s.typ == "NodePort" || (s.typ == "ClusterIP" && len(listOf(s.spec["externalIPs"])) > 0)
}

func (s service) needsHealthCheck() bool {
	return s.typ == "LoadBalancer" && str(s.spec, "externalTrafficPolicy") == "Local"
}

func validateService(obj map[string]any, _ Options) field.ErrorList {
	// RelaxedServiceNameValidation (KEP-5311) is on by default in 1.37: names are DNS labels.
	errs := coreObjectMeta(obj, true, validation.NameIsDNSLabel)
	return distinct(append(errs, serviceRules(newService(obj), nil)...))
}

func validateServiceUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	if opts.Subresource == "status" {
		errs = append(errs, loadBalancerStatus(field.NewPath("status", "loadBalancer"), mapOf(mapOf(obj["status"])["loadBalancer"]),
			mapOf(mapOf(old["status"])["loadBalancer"]), str(mapOf(obj["spec"]), "type"))...)
		return distinct(errs)
	}
	s, o := newService(obj), newService(old)
	errs = append(errs, upgradeDowngradeClusterIPs(o, s)...)
	errs = append(errs, upgradeDowngradeIPFamilies(o, s)...)
	errs = append(errs, loadBalancerClass(&o, s)...)
	if o.needsHealthCheck() && s.needsHealthCheck() {
		a, _ := integer(s.spec, "healthCheckNodePort")
		b, _ := integer(o.spec, "healthCheckNodePort")
		if a != b {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "healthCheckNodePort"), "field is immutable"))
		}
	}
	return distinct(append(errs, serviceRules(s, &o)...))
}

// servicePortKey is core.ServicePort as the apiserver prints a duplicate (protocol, port).
type servicePortKey struct {
	Name        string
	Protocol    string
	AppProtocol *string
	Port        int64
	TargetPort  int64
	NodePort    int64
}

// serviceRules is validateService (without metadata).
func serviceRules(s service, old *service) field.ErrorList {
	var errs field.ErrorList
	spec := s.spec
	annotations := stringMap(mapOf(s.obj["metadata"])["annotations"])
	hints, hintsSet := annotations["service.kubernetes.io/topology-aware-hints"]
	mode, modeSet := annotations["service.kubernetes.io/topology-mode"]
	if modeSet && hintsSet && mode != hints {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key("service.kubernetes.io/topology-mode"), mode,
			"must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified"))
	}
	sp := field.NewPath("spec")
	ports := listOf(spec["ports"])
	if len(ports) == 0 && !s.headless() && s.typ != "ExternalName" {
		errs = append(errs, field.Required(sp.Child("ports"), ""))
	}
	switch s.typ {
	case "LoadBalancer":
		if s.headless() {
			errs = append(errs, field.Invalid(sp.Child("clusterIPs").Index(0), s.ips[0], "may not be set to 'None' for LoadBalancer services"))
		}
	case "NodePort":
		if s.headless() {
			errs = append(errs, field.Invalid(sp.Child("clusterIPs").Index(0), s.ips[0], "may not be set to 'None' for NodePort services"))
		}
	case "ExternalName":
		if len(s.ips) > 0 {
			errs = append(errs, field.Forbidden(sp.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
		if len(s.families) > 0 {
			errs = append(errs, field.Forbidden(sp.Child("ipFamilies"), "may not be set for ExternalName services"))
		}
		if has(spec, "ipFamilyPolicy") {
			errs = append(errs, field.Forbidden(sp.Child("ipFamilyPolicy"), "may not be set for ExternalName services"))
		}
		if cname := strings.TrimSuffix(str(spec, "externalName"), "."); cname != "" {
			for _, m := range validation.IsDNS1123Subdomain(cname) {
				errs = append(errs, field.Invalid(sp.Child("externalName"), cname, m))
			}
		} else {
			errs = append(errs, field.Required(sp.Child("externalName"), ""))
		}
	}
	names := map[string]bool{}
	for i, x := range ports {
		errs = append(errs, servicePort(sp.Child("ports").Index(i), mapOf(x), len(ports) > 1, names)...)
	}
	if sel, ok := spec["selector"].(map[string]any); ok {
		errs = append(errs, schema.ValidateLabels(stringMap(sel), sp.Child("selector"))...)
	}
	affinity := str(spec, "sessionAffinity")
	switch affinity {
	case "":
		errs = append(errs, field.Required(sp.Child("sessionAffinity"), ""))
	case "ClientIP", "None":
	default:
		errs = append(errs, field.NotSupported(sp.Child("sessionAffinity"), affinity, []string{"ClientIP", "None"}))
	}
	cfg, hasCfg := spec["sessionAffinityConfig"].(map[string]any)
	if affinity == "ClientIP" {
		errs = append(errs, clientIPAffinityConfig(sp.Child("sessionAffinityConfig"), cfg, hasCfg)...)
	} else if affinity == "None" && hasCfg {
		errs = append(errs, field.Forbidden(sp.Child("sessionAffinityConfig"), "must not be set when session affinity is None"))
	}
	errs = append(errs, clusterIPsRelatedFields(s, old)...)
	var oldExternal []string
	if old != nil {
		oldExternal = stringList(old.spec["externalIPs"])
	}
	for i, ip := range stringList(spec["externalIPs"]) {
		p := sp.Child("externalIPs").Index(i)
		if e := legacyIPKeeping(p, ip, oldExternal); len(e) != 0 {
			errs = append(errs, e...)
		} else {
			errs = append(errs, endpointIP(p, ip)...)
		}
	}
	switch s.typ {
	case "":
		errs = append(errs, field.Required(sp.Child("type"), ""))
	case "ClusterIP", "ExternalName", "LoadBalancer", "NodePort":
	default:
		errs = append(errs, field.NotSupported(sp.Child("type"), s.typ, []string{"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}))
	}
	if s.typ == "ClusterIP" {
		for i, x := range ports {
			if n, _ := integer(mapOf(x), "nodePort"); n != 0 {
				errs = append(errs, field.Forbidden(sp.Child("ports").Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	type protoPort struct {
		proto string
		n     int64
	}
	nodePorts := map[protoPort]bool{}
	for i, x := range ports {
		port := mapOf(x)
		n, _ := integer(port, "nodePort")
		if n == 0 {
			continue
		}
		key := protoPort{str(port, "protocol"), n}
		if nodePorts[key] {
			errs = append(errs, field.Duplicate(sp.Child("ports").Index(i).Child("nodePort"), n))
		}
		nodePorts[key] = true
	}
	seen := map[protoPort]bool{}
	for i, x := range ports {
		port := mapOf(x)
		n, _ := integer(port, "port")
		key := protoPort{str(port, "protocol"), n}
		if seen[key] {
			errs = append(errs, field.Duplicate(sp.Child("ports").Index(i), servicePortKey{Protocol: key.proto, Port: n}))
		}
		seen[key] = true
	}
	if ranges := stringList(spec["loadBalancerSourceRanges"]); len(ranges) > 0 {
		p := sp.Child("LoadBalancerSourceRanges")
		if s.typ != "LoadBalancer" {
			errs = append(errs, field.Forbidden(p, "may only be used when `type` is 'LoadBalancer'"))
		}
		var existing []string
		if old != nil {
			for _, v := range stringList(old.spec["loadBalancerSourceRanges"]) {
				existing = append(existing, strings.TrimSpace(v))
			}
		}
		for i, v := range ranges {
			errs = append(errs, legacyCIDR(p.Index(i), strings.TrimSpace(v), existing)...)
		}
	} else if val, ok := annotations["service.beta.kubernetes.io/load-balancer-source-ranges"]; ok {
		p := field.NewPath("metadata", "annotations").Key("service.beta.kubernetes.io/load-balancer-source-ranges")
		if s.typ != "LoadBalancer" {
			errs = append(errs, field.Forbidden(p, "may only be used when `type` is 'LoadBalancer'"))
		}
		oldVal, oldOK := "", false
		if old != nil {
			oldVal, oldOK = stringMap(mapOf(old.obj["metadata"])["annotations"])["service.beta.kubernetes.io/load-balancer-source-ranges"]
		}
		if old == nil || !oldOK || oldVal != val {
			if val = strings.TrimSpace(val); val != "" {
				for _, v := range strings.Split(val, ",") {
					errs = append(errs, legacyCIDR(p, strings.TrimSpace(v), nil)...)
				}
			}
		}
	}
	_, hasAlloc := spec["allocateLoadBalancerNodePorts"].(bool)
	if hasAlloc && s.typ != "LoadBalancer" {
		errs = append(errs, field.Forbidden(sp.Child("allocateLoadBalancerNodePorts"), "may only be used when `type` is 'LoadBalancer'"))
	}
	if s.typ == "LoadBalancer" && !hasAlloc {
		errs = append(errs, field.Required(field.NewPath("allocateLoadBalancerNodePorts"), ""))
	}
	errs = append(errs, loadBalancerClass(nil, s)...)
	errs = append(errs, externalTrafficPolicy(s)...)
	itp, hasITP := spec["internalTrafficPolicy"].(string)
	if !hasITP && (s.typ == "NodePort" || s.typ == "LoadBalancer" || s.typ == "ClusterIP") {
		errs = append(errs, field.Required(sp.Child("internalTrafficPolicy"), ""))
	}
	if hasITP && itp != "Cluster" && itp != "Local" {
		errs = append(errs, field.NotSupported(sp.Child("internalTrafficPolicy"), itp, []string{"Cluster", "Local"}))
	}
	if td, ok := spec["trafficDistribution"].(string); ok && td != "PreferClose" && td != "PreferSameZone" && td != "PreferSameNode" {
		errs = append(errs, field.NotSupported(sp.Child("trafficDistribution"), td, []string{"PreferClose", "PreferSameZone", "PreferSameNode"}))
	}
	return errs
}

func servicePort(p field.Path, port map[string]any, requireName bool, names map[string]bool) field.ErrorList {
	var errs field.ErrorList
	name := str(port, "name")
	if requireName && name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else if name != "" {
		for _, m := range validation.IsDNS1123Label(name) {
			errs = append(errs, field.Invalid(p.Child("name"), name, m))
		}
		if names[name] {
			errs = append(errs, field.Duplicate(p.Child("name"), name))
		} else {
			names[name] = true
		}
	}
	n, _ := integer(port, "port")
	for _, m := range validation.IsValidPortNum(n) {
		errs = append(errs, field.Invalid(p.Child("port"), n, m))
	}
	switch proto := str(port, "protocol"); proto {
	case "":
		errs = append(errs, field.Required(p.Child("protocol"), ""))
	case "SCTP", "TCP", "UDP":
	default:
		errs = append(errs, field.NotSupported(p.Child("protocol"), proto, []string{"SCTP", "TCP", "UDP"}))
	}
	errs = append(errs, portNumOrName(p.Child("targetPort"), port["targetPort"])...)
	if ap, ok := port["appProtocol"].(string); ok {
		errs = append(errs, qualifiedName(p.Child("appProtocol"), ap)...)
	}
	return errs
}

func clientIPAffinityConfig(p field.Path, cfg map[string]any, present bool) field.ErrorList {
	const when = "when session affinity type is ClientIP"
	if !present {
		return field.ErrorList{field.Required(p, when)}
	}
	cip, ok := cfg["clientIP"].(map[string]any)
	if !ok {
		return field.ErrorList{field.Required(p.Child("clientIP"), when)}
	}
	t, ok := integer(cip, "timeoutSeconds")
	if !ok {
		return field.ErrorList{field.Required(p.Child("clientIP", "timeoutSeconds"), when)}
	}
	if t <= 0 || t > 86400 {
		return field.ErrorList{field.Invalid(p.Child("clientIP", "timeoutSeconds"), t, "must be greater than 0 and less than 86400")}
	}
	return nil
}

func externalTrafficPolicy(s service) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec")
	etp := str(s.spec, "externalTrafficPolicy")
	if !s.externallyAccessible() {
		if etp != "" {
			errs = append(errs, field.Invalid(p.Child("externalTrafficPolicy"), etp, "may only be set for externally-accessible services"))
		}
	} else if etp == "" {
		errs = append(errs, field.Required(p.Child("externalTrafficPolicy"), ""))
	} else if etp != "Cluster" && etp != "Local" {
		errs = append(errs, field.NotSupported(p.Child("externalTrafficPolicy"), etp, []string{"Cluster", "Local"}))
	}
	hc, _ := integer(s.spec, "healthCheckNodePort")
	if !s.needsHealthCheck() {
		if hc != 0 {
			errs = append(errs, field.Invalid(p.Child("healthCheckNodePort"), hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
		}
	} else if hc == 0 {
		errs = append(errs, field.Required(p.Child("healthCheckNodePort"), ""))
	} else {
		for _, m := range validation.IsValidPortNum(hc) {
			errs = append(errs, field.Invalid(p.Child("healthCheckNodePort"), hc, m))
		}
	}
	return errs
}

// loadBalancerClass is validateLoadBalancerClassField (old nil on create).
func loadBalancerClass(old *service, s service) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec", "loadBalancerClass")
	cls, hasCls := s.spec["loadBalancerClass"].(string)
	if old != nil && old.typ == "LoadBalancer" && s.typ == "LoadBalancer" {
		oc, hasOld := old.spec["loadBalancerClass"].(string)
		if hasOld != hasCls || oc != cls {
			var bad any
			if hasCls {
				bad = cls
			}
			errs = append(errs, field.Invalid(p, bad, "may not change once set"))
		}
	}
	if s.typ == "LoadBalancer" {
		if hasCls {
			errs = append(errs, qualifiedName(p, cls)...)
		}
	} else if hasCls {
		errs = append(errs, field.Forbidden(p, "may only be used when `type` is 'LoadBalancer'"))
	}
	return errs
}

func clusterIPsRelatedFields(s service, old *service) field.ErrorList {
	if s.typ == "ExternalName" {
		return nil
	}
	var errs field.ErrorList
	p := field.NewPath("spec", "clusterIPs")
	if ip := str(s.spec, "clusterIP"); ip != "" {
		if len(s.ips) == 0 {
			errs = append(errs, field.Required(p, ""))
		} else if s.ips[0] != ip {
			errs = append(errs, field.Invalid(p, s.ips, "first value must match `clusterIP`"))
		}
	} else if len(s.ips) != 0 {
		errs = append(errs, field.Invalid(p, s.ips, "must be empty when `clusterIP` is not specified"))
	}
	seen := map[string]bool{}
	for i, f := range s.families {
		if f != "IPv4" && f != "IPv6" {
			errs = append(errs, field.NotSupported(field.NewPath("spec", "ipFamilies").Index(i), f, []string{"IPv4", "IPv6"}))
		}
		if seen[f] {
			errs = append(errs, field.Duplicate(field.NewPath("spec", "ipFamilies").Index(i), f))
		}
		seen[f] = true
	}
	if pol, ok := s.spec["ipFamilyPolicy"].(string); ok && pol != "SingleStack" && pol != "PreferDualStack" && pol != "RequireDualStack" {
		errs = append(errs, field.NotSupported(field.NewPath("spec", "ipFamilyPolicy"), pol, []string{"PreferDualStack", "RequireDualStack", "SingleStack"}))
	}
	var existing []string
	if old != nil {
		existing = old.ips
	}
	invalid := false
	for i, ip := range s.ips {
		if i == 0 && ip == "None" {
			if len(s.ips) > 1 {
				invalid = true
				errs = append(errs, field.Invalid(p, s.ips, "'None' must be the first and only value"))
			}
			continue
		}
		e := legacyIPKeeping(p.Index(i), ip, existing)
		invalid = invalid || len(e) != 0
		errs = append(errs, e...)
	}
	if len(s.ips) > 2 {
		errs = append(errs, field.Invalid(p, s.ips, "may only hold up to 2 values"))
	}
	if invalid {
		return errs
	}
	if len(s.ips) > 1 && !dualStack(s.ips) {
		errs = append(errs, field.Invalid(p, s.ips, "may specify no more than one IP for each IP family"))
	}
	if !s.headless() && len(s.ips) > 0 && len(s.families) > 0 {
		for i, ip := range s.ips {
			if i > len(s.families)-1 {
				break
			}
			v6 := isIPv6(ip)
			if s.families[i] == "IPv4" && v6 {
				errs = append(errs, field.Invalid(p.Index(i), ip, fmt.Sprintf("expected an IPv4 value as indicated by `ipFamilies[%v]`", i)))
			}
			if s.families[i] == "IPv6" && !v6 {
				errs = append(errs, field.Invalid(p.Index(i), ip, fmt.Sprintf("expected an IPv6 value as indicated by `ipFamilies[%v]`", i)))
			}
		}
	}
	return errs
}

func upgradeDowngradeClusterIPs(old, s service) field.ErrorList {
	if s.typ == "ExternalName" || old.typ == "ExternalName" || (old.headless() && s.headless()) {
		return nil
	}
	var errs field.ErrorList
	p := field.NewPath("spec", "clusterIPs")
	switch {
	case len(old.ips) == len(s.ips):
		for i, ip := range old.ips {
			if ip != s.ips[i] {
				errs = append(errs, field.Invalid(p.Index(i), s.ips, "may not change once set"))
			}
		}
	case len(old.ips) > len(s.ips):
		if len(s.ips) == 0 {
			errs = append(errs, field.Invalid(p.Index(0), s.ips, "primary clusterIP can not be unset"))
		}
		if len(old.ips) > 0 && len(s.ips) > 0 && s.ips[0] != old.ips[0] {
			errs = append(errs, field.Invalid(p.Index(0), s.ips, "may not change once set"))
		}
		if len(s.ips) == 1 {
			if pol, ok := s.spec["ipFamilyPolicy"].(string); !ok || pol != "SingleStack" {
				errs = append(errs, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), policyValue(s), "must be set to 'SingleStack' when releasing the secondary clusterIP"))
			}
		}
	default:
		if len(old.ips) > 0 && s.ips[0] != old.ips[0] {
			errs = append(errs, field.Invalid(p.Index(0), s.ips, "may not change once set"))
		}
	}
	return errs
}

func policyValue(s service) any {
	if pol, ok := s.spec["ipFamilyPolicy"].(string); ok {
		return pol
	}
	return nil
}

func upgradeDowngradeIPFamilies(old, s service) field.ErrorList {
	if s.typ == "ExternalName" || old.typ == "ExternalName" || old.headless() != s.headless() || s.headless() {
		return nil
	}
	var errs field.ErrorList
	p := field.NewPath("spec", "ipFamilies").Index(0)
	switch {
	case len(old.families) == len(s.families):
		for i, f := range old.families {
			if f != s.families[i] {
				errs = append(errs, field.Invalid(p, s.families, "may not change once set"))
			}
		}
	case len(old.families) > len(s.families):
		if len(s.ips) == 0 {
			errs = append(errs, field.Invalid(p, s.families, "primary ipFamily can not be unset"))
		}
		if len(s.families) > 0 && s.families[0] != old.families[0] {
			errs = append(errs, field.Invalid(p, s.ips, "may not change once set"))
		}
		if len(s.families) == 1 {
			if pol, ok := s.spec["ipFamilyPolicy"].(string); !ok || pol != "SingleStack" {
				errs = append(errs, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), policyValue(s), "must be set to 'SingleStack' when releasing the secondary ipFamily"))
			}
		}
	default:
		if len(old.families) > 0 && len(s.families) > 0 && s.families[0] != old.families[0] {
			errs = append(errs, field.Invalid(p, s.ips, "may not change once set"))
		}
	}
	return errs
}

// parseIPSloppy is k8s.io/utils/net's ParseIPSloppy: net.ParseIP that also accepts leading
// zeros in IPv4 parts (read as decimal), as Go before 1.17 did.
func parseIPSloppy(s string) net.IP {
	if ip := net.ParseIP(s); ip != nil {
		return ip
	}
	i := strings.LastIndexByte(s, ':')
	head, tail := s[:i+1], s[i+1:]
	parts := strings.Split(tail, ".")
	if len(parts) != 4 {
		return nil
	}
	for j, part := range parts {
		if part == "" {
			return nil
		}
		n := 0
		for _, c := range part {
			if c < '0' || c > '9' {
				return nil
			}
			n = n*10 + int(c-'0')
			if n > 0xFFFFFF {
				return nil
			}
		}
		if n > 255 {
			return nil
		}
		parts[j] = fmt.Sprint(n)
	}
	return net.ParseIP(head + strings.Join(parts, "."))
}

func isIPv6(s string) bool {
	ip := parseIPSloppy(s)
	return ip != nil && ip.To4() == nil
}

// dualStack is IsDualStackIPStrings: one IPv4 and one IPv6 address among the (valid) values.
func dualStack(ips []string) bool {
	v4, v6 := 0, 0
	for _, s := range ips {
		if isIPv6(s) {
			v6++
		} else {
			v4++
		}
	}
	return v4 > 0 && v6 > 0
}

// loadBalancerStatus is ValidateLoadBalancerStatus (ValidateServiceStatusUpdate's rules):
// ingress points only for a LoadBalancer Service, each IP valid (the stored ones kept as they
// are), ipMode with an IP only and VIP or Proxy, hostnames DNS names and not IPs.
func loadBalancerStatus(p field.Path, st, old map[string]any, serviceType string) field.ErrorList {
	ip := p.Child("ingress")
	ingress := listOf(st["ingress"])
	if serviceType != "LoadBalancer" && len(ingress) != 0 {
		return field.ErrorList{field.Forbidden(ip, "may only be used when `spec.type` is 'LoadBalancer'")}
	}
	var existing []string
	for _, in := range listOf(old["ingress"]) {
		if v := str(mapOf(in), "ip"); v != "" {
			existing = append(existing, v)
		}
	}
	var errs field.ErrorList
	for i, in := range ingress {
		m, p := mapOf(in), ip.Index(i)
		addr := str(m, "ip")
		if addr != "" {
			errs = append(errs, legacyIPKeeping(p.Child("ip"), addr, existing)...)
		}
		mode, hasMode := m["ipMode"].(string)
		switch {
		case !hasMode:
			if addr != "" {
				errs = append(errs, field.Required(p.Child("ipMode"), "must be specified when `ip` is set"))
			}
		case addr == "":
			errs = append(errs, field.Forbidden(p.Child("ipMode"), "may not be specified when `ip` is not set"))
		case mode != "VIP" && mode != "Proxy":
			errs = append(errs, field.NotSupported(p.Child("ipMode"), mode, []string{"Proxy", "VIP"}))
		}
		if h := str(m, "hostname"); h != "" {
			errs = append(errs, invalids(p.Child("hostname"), h, validation.IsDNS1123Subdomain(h))...)
			if parseIPSloppy(h) != nil {
				errs = append(errs, field.Invalid(p.Child("hostname"), h, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

// goStringList is a []string field as the Go value holds it: nil when the JSON has none (which
// a bad value prints as null), the list (empty or not) otherwise.
func goStringList(v any) []string {
	if _, ok := v.([]any); !ok {
		return nil
	}
	return stringList(v)
}

// legacyIPKeeping is IsValidIPForLegacyField with the stored object's values accepted as they
// are.
func legacyIPKeeping(p field.Path, v string, validOld []string) field.ErrorList {
	for _, o := range validOld {
		if o == v {
			return nil
		}
	}
	return legacyIP(p, v)
}

// endpointIP is ValidateEndpointIP.
func endpointIP(p field.Path, v string) field.ErrorList {
	ip := parseIPSloppy(v)
	if ip == nil {
		return field.ErrorList{field.Invalid(p, v, "must be a valid IP address")}
	}
	var errs field.ErrorList
	if ip.IsUnspecified() {
		errs = append(errs, field.Invalid(p, v, fmt.Sprintf("may not be unspecified (%v)", v)))
	}
	if ip.IsLoopback() {
		errs = append(errs, field.Invalid(p, v, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if ip.IsLinkLocalUnicast() {
		errs = append(errs, field.Invalid(p, v, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if ip.IsLinkLocalMulticast() {
		errs = append(errs, field.Invalid(p, v, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}

// legacyCIDR is IsValidCIDRForLegacyField with strict validation.
func legacyCIDR(p field.Path, v string, validOld []string) field.ErrorList {
	for _, o := range validOld {
		if o == v {
			return nil
		}
	}
	i := strings.IndexByte(v, '/')
	if i < 0 || parseIPSloppy(v[:i]) == nil || !validPrefixLen(v[i+1:], v[:i]) {
		return field.ErrorList{field.Invalid(p, v, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")}
	}
	prefix, err := netip.ParsePrefix(v)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(p, v, "must not have leading 0s in IP or prefix length")}
	case prefix.Addr().Is4In6():
		return field.ErrorList{field.Invalid(p, v, "must not have an IPv4-mapped IPv6 address")}
	case prefix.Addr() != prefix.Masked().Addr():
		return field.ErrorList{field.Invalid(p, v, "must not have bits set beyond the prefix length")}
	}
	return nil
}

// validPrefixLen: ParseCIDRSloppy's prefix length, decimal digits (leading zeros allowed) up to
// the address's bit length.
func validPrefixLen(s, ip string) bool {
	if s == "" {
		return false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
		if n > 0xFFFFFF {
			return false
		}
	}
	bits := 32
	if strings.Contains(ip, ":") {
		bits = 128
	}
	return n <= bits
}

// serviceWarnings is GetWarningsForService (the main resource's create and update).
func serviceWarnings(obj, _ map[string]any, opts Options) []string {
	if opts.Subresource != "" {
		return nil
	}
	s := newService(obj)
	var w []string
	annotations := stringMap(mapOf(obj["metadata"])["annotations"])
	if _, ok := annotations["service.kubernetes.io/topology-aware-hints"]; ok {
		w = append(w, "annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead")
	}
	clusterIP := str(s.spec, "clusterIP")
	if clusterIP != "" && clusterIP != "None" {
		for i, ip := range s.ips {
			w = append(w, ipWarnings(field.NewPath("spec", "clusterIPs").Index(i), ip)...)
		}
	}
	externalIPs := stringList(s.spec["externalIPs"])
	if s.typ == "ClusterIP" && clusterIP == "None" {
		if str(s.spec, "loadBalancerIP") != "" {
			w = append(w, "spec.loadBalancerIP is ignored for headless services")
		}
		if len(externalIPs) > 0 {
			w = append(w, "spec.externalIPs is ignored for headless services")
		}
		if str(s.spec, "sessionAffinity") != "None" {
			w = append(w, "spec.SessionAffinity is ignored for headless services")
		}
	}
	for i, ip := range externalIPs {
		w = append(w, ipWarnings(field.NewPath("spec", "externalIPs").Index(i), ip)...)
	}
	if len(externalIPs) > 0 && !(s.typ == "ClusterIP" && clusterIP == "None") && s.typ != "ExternalName" {
		w = append(w, "spec.externalIPs is deprecated and may no longer be implemented in some clusters")
	}
	if lb := str(s.spec, "loadBalancerIP"); lb != "" {
		w = append(w, ipWarnings(field.NewPath("spec", "loadBalancerIP"), lb)...)
	}
	for i, c := range stringList(s.spec["loadBalancerSourceRanges"]) {
		w = append(w, cidrWarnings(fmt.Sprintf("spec.loadBalancerSourceRanges[%d]", i), c)...)
	}
	if s.typ == "ExternalName" && len(externalIPs) > 0 {
		w = append(w, `spec.externalIPs is ignored when spec.type is "ExternalName"`)
	}
	if s.typ != "ExternalName" && str(s.spec, "externalName") != "" {
		w = append(w, `spec.externalName is ignored when spec.type is not "ExternalName"`)
	}
	if td, ok := s.spec["trafficDistribution"].(string); ok && td == "PreferClose" {
		w = append(w, `spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"`)
	}
	return w
}

// ipWarnings is apimachinery's GetWarningsForIP (nothing for a value that does not parse): a
// value with leading zeros or an IPv4-mapped IPv6 address, an IPv6 address not in RFC 5952 form.
func ipWarnings(p field.Path, v string) []string {
	ip := parseIPSloppy(v)
	if ip == nil {
		return nil
	}
	addr, err := netip.ParseAddr(v)
	if err != nil || addr.Is4In6() {
		return []string{fmt.Sprintf("%s: non-standard IP address %q is invalid: use %q", p, v, ip.String())}
	}
	if addr.Is6() && addr.String() != v {
		return []string{fmt.Sprintf("%s: IPv6 address %q should be in RFC 5952 canonical format (%q)", p, v, addr.String())}
	}
	return nil
}

// cidrWarnings is apimachinery's GetWarningsForCIDR (nothing for a value that does not parse).
func cidrWarnings(p, v string) []string {
	i := strings.IndexByte(v, '/')
	if i < 0 {
		return nil
	}
	ip := parseIPSloppy(v[:i])
	if ip == nil || !validPrefixLen(v[i+1:], v[:i]) {
		return nil
	}
	n := 0
	for _, c := range v[i+1:] {
		n = n*10 + int(c-'0')
	}
	bits := 128
	if ip4 := ip.To4(); ip4 != nil && !strings.Contains(v[:i], ":") {
		bits, ip = 32, ip4
	}
	ipnet := net.IPNet{IP: ip.Mask(net.CIDRMask(n, bits)), Mask: net.CIDRMask(n, bits)}
	var w []string
	if !ip.Equal(ipnet.IP) {
		w = append(w, fmt.Sprintf("%s: CIDR value %q is ambiguous in this context (should be %q or %q?)", p, v, ipnet.String(), fmt.Sprintf("%s/%d", ip.String(), bits)))
	}
	prefix, err := netip.ParsePrefix(v)
	addr := prefix.Addr()
	if err != nil || addr.Is4In6() {
		w = append(w, fmt.Sprintf("%s: non-standard CIDR value %q is invalid: use %q", p, v, ipnet.String()))
	}
	if len(w) == 0 && addr.Is6() && prefix.String() != v {
		w = append(w, fmt.Sprintf("%s: IPv6 CIDR value %q should be in RFC 5952 canonical format (%q)", p, v, prefix.String()))
	}
	return w
}
