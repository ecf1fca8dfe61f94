package validation

import (
	"fmt"
	"net"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// networking.k8s.io: Ingress (and its /status), IngressClass and NetworkPolicy, as
// pkg/apis/networking/validation and their strategies; the declarative rules 1.37 enforces (beta)
// for these kinds are the required ipBlock.cidr and IngressClass parameters' kind and name,
// which come after the hand-written errors.

// ingressOptions are IngressValidationOptions (service names are DNS labels:
// RelaxedServiceNameValidation is GA and locked on in 1.37).
type ingressOptions struct {
	allowInvalidSecretName       bool
	allowInvalidWildcardHostRule bool
}

func validateIngress(obj map[string]any, _ Options) field.ErrorList {
	errs := ingressRules(obj, ingressOptions{})
	annotation, set := stringMap(mapOf(obj["metadata"])["annotations"])["kubernetes.io/ingress.class"]
	if className, ok := mapOf(obj["spec"])["ingressClassName"].(string); set && ok && annotation != className {
		errs = append(errs, field.Invalid(field.NewPath("annotations").Child("kubernetes.io/ingress.class"), annotation, "must match `ingressClassName` when both are specified"))
	}
	return withDeclarative(errs, nil)
}

func validateIngressUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	if opts.Subresource == "status" {
		errs := coreObjectMetaUpdate(obj, old)
		errs = append(errs, ingressLoadBalancerStatus(obj, old)...)
		return withDeclarative(errs, nil)
	}
	if opts.Subresource != "" {
		return nil
	}
	oldSpec := mapOf(old["spec"])
	io := ingressOptions{allowInvalidSecretName: anyInvalidSecretName(oldSpec), allowInvalidWildcardHostRule: anyInvalidWildcardRule(oldSpec)}
	errs := coreObjectMetaUpdate(obj, old)
	return withDeclarative(append(errs, ingressRules(obj, io)...), nil)
}

// ingressRules is validateIngress: metadata as on create, then the spec.
func ingressRules(obj map[string]any, io ingressOptions) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	spec := mapOf(obj["spec"])
	p := field.NewPath("spec")
	rules := listOf(spec["rules"])
	backend, hasBackend := spec["defaultBackend"].(map[string]any)
	if len(rules) == 0 && !hasBackend {
		var bad any = []any{}
		if _, ok := spec["rules"].([]any); !ok {
			bad = nil
		}
		errs = append(errs, field.Invalid(p, bad, "either `defaultBackend` or `rules` must be specified"))
	}
	if hasBackend {
		errs = append(errs, ingressBackend(p.Child("defaultBackend"), backend)...)
	}
	for i, raw := range rules {
		errs = append(errs, ingressRule(p.Child("rules").Index(i), mapOf(raw), io)...)
	}
	for i, raw := range listOf(spec["tls"]) {
		tls := mapOf(raw)
		tp := p.Child("tls").Index(i)
		for j, host := range stringList(tls["hosts"]) {
			hp := tp.Child("hosts").Index(j)
			if strings.Contains(host, "*") {
				errs = append(errs, invalids(hp, host, validation.IsWildcardDNS1123Subdomain(host))...)
				continue
			}
			errs = append(errs, invalids(hp, host, validation.IsDNS1123Subdomain(host))...)
		}
		if !io.allowInvalidSecretName {
			if name := str(tls, "secretName"); name != "" {
				errs = append(errs, invalids(tp.Child("secretName"), name, validation.NameIsDNSSubdomain(name, false))...)
			}
		}
	}
	if name, ok := spec["ingressClassName"].(string); ok {
		errs = append(errs, invalids(p.Child("ingressClassName"), name, validation.NameIsDNSSubdomain(name, false))...)
	}
	return errs
}

// invalids turns messages about v into Invalid errors at p.
func invalids(p field.Path, v any, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, v, m))
	}
	return errs
}

func ingressRule(p field.Path, rule map[string]any, io ingressOptions) field.ErrorList {
	var errs field.ErrorList
	wildcard := false
	if host := str(rule, "host"); host != "" {
		hp := p.Child("host")
		if parseIPSloppy(host) != nil {
			errs = append(errs, field.Invalid(hp, host, "must be a DNS name, not an IP address"))
		}
		if strings.Contains(host, "*") {
			errs = append(errs, invalids(hp, host, validation.IsWildcardDNS1123Subdomain(host))...)
			wildcard = true
		} else {
			errs = append(errs, invalids(hp, host, validation.IsDNS1123Subdomain(host))...)
		}
	}
	if !wildcard || !io.allowInvalidWildcardHostRule {
		errs = append(errs, ingressRuleValue(p, rule)...)
	}
	return errs
}

// ingressRuleValue is validateIngressRuleValue: the rule's http paths.
func ingressRuleValue(p field.Path, rule map[string]any) field.ErrorList {
	http, ok := rule["http"].(map[string]any)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	hp := p.Child("http")
	paths := listOf(http["paths"])
	if len(paths) == 0 {
		errs = append(errs, field.Required(hp.Child("paths"), ""))
	}
	for i, raw := range paths {
		errs = append(errs, ingressPath(hp.Child("paths").Index(i), mapOf(raw))...)
	}
	return errs
}

func ingressPath(p field.Path, path map[string]any) field.ErrorList {
	pathType, ok := path["pathType"].(string)
	if !ok {
		return field.ErrorList{field.Required(p.Child("pathType"), "pathType must be specified")}
	}
	var errs field.ErrorList
	v := str(path, "path")
	pp := p.Child("path")
	switch pathType {
	case "Exact", "Prefix":
		if !strings.HasPrefix(v, "/") {
			errs = append(errs, field.Invalid(pp, v, "must be an absolute path"))
		}
		for _, seq := range []string{"//", "/./", "/../", "%2f", "%2F"} {
			if strings.Contains(v, seq) {
				errs = append(errs, field.Invalid(pp, v, fmt.Sprintf("must not contain '%s'", seq)))
			}
		}
		for _, suffix := range []string{"/..", "/."} {
			if strings.HasSuffix(v, suffix) {
				errs = append(errs, field.Invalid(pp, v, fmt.Sprintf("cannot end with '%s'", suffix)))
			}
		}
	case "ImplementationSpecific":
		if v != "" && !strings.HasPrefix(v, "/") {
			errs = append(errs, field.Invalid(pp, v, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("pathType"), pathType, []string{"Exact", "ImplementationSpecific", "Prefix"}))
	}
	return append(errs, ingressBackend(p.Child("backend"), mapOf(path["backend"]))...)
}

// ingressBackend is validateIngressBackend.
func ingressBackend(p field.Path, b map[string]any) field.ErrorList {
	resource, hasResource := b["resource"].(map[string]any)
	service, hasService := b["service"].(map[string]any)
	switch {
	case hasResource && hasService:
		return field.ErrorList{field.Invalid(p, "", "cannot set both resource and service backends")}
	case hasResource:
		return typedLocalObjectReference(p.Child("resource"), resource)
	case !hasService:
		return field.ErrorList{field.Invalid(p, "", "resource or service backend is required")}
	}
	var errs field.ErrorList
	sp := p.Child("service")
	if name := str(service, "name"); name == "" {
		errs = append(errs, field.Required(sp.Child("name"), ""))
	} else {
		errs = append(errs, invalids(sp.Child("name"), name, validation.NameIsDNSLabel(name, false))...)
	}
	port := mapOf(service["port"])
	portName := str(port, "name")
	number, _ := integer(port, "number")
	switch {
	case portName != "" && number != 0:
		errs = append(errs, field.Invalid(p, "", "cannot set both port name & port number"))
	case portName != "":
		errs = append(errs, invalids(sp.Child("port", "name"), portName, validation.IsValidPortName(portName))...)
	case number != 0:
		errs = append(errs, invalids(sp.Child("port", "number"), number, validation.IsValidPortNum(number))...)
	default:
		errs = append(errs, field.Required(p, "port name or number is required"))
	}
	return errs
}

// typedLocalObjectReference is validateIngressTypedLocalObjectReference.
func typedLocalObjectReference(p field.Path, ref map[string]any) field.ErrorList {
	var errs field.ErrorList
	if g, ok := ref["apiGroup"].(string); ok {
		errs = append(errs, invalids(p.Child("apiGroup"), g, validation.IsDNS1123Subdomain(g))...)
	}
	for _, key := range []string{"kind", "name"} {
		if v := str(ref, key); v == "" {
			errs = append(errs, field.Required(p.Child(key), ""))
		} else {
			errs = append(errs, invalids(p.Child(key), v, validation.IsValidPathSegmentName(v))...)
		}
	}
	return errs
}

func anyInvalidSecretName(spec map[string]any) bool {
	for _, raw := range listOf(spec["tls"]) {
		if name := str(mapOf(raw), "secretName"); name != "" && len(validation.NameIsDNSSubdomain(name, false)) > 0 {
			return true
		}
	}
	return false
}

func anyInvalidWildcardRule(spec map[string]any) bool {
	for _, raw := range listOf(spec["rules"]) {
		rule := mapOf(raw)
		if strings.Contains(str(rule, "host"), "*") && len(ingressRuleValue(field.Path{}, rule)) > 0 {
			return true
		}
	}
	return false
}

// ingressLoadBalancerStatus is ValidateIngressLoadBalancerStatus: the addresses of
// status.loadBalancer.ingress (an IP the stored status has is kept as it is).
func ingressLoadBalancerStatus(obj, old map[string]any) field.ErrorList {
	oldIPs := map[string]bool{}
	for _, raw := range listOf(mapOf(mapOf(old["status"])["loadBalancer"])["ingress"]) {
		if ip := str(mapOf(raw), "ip"); ip != "" {
			oldIPs[ip] = true
		}
	}
	var errs field.ErrorList
	p := field.NewPath("status", "loadBalancer", "ingress")
	for i, raw := range listOf(mapOf(mapOf(obj["status"])["loadBalancer"])["ingress"]) {
		lb := mapOf(raw)
		if ip := str(lb, "ip"); ip != "" && !oldIPs[ip] {
			errs = append(errs, legacyIP(p.Index(i).Child("ip"), ip)...)
		}
		if host := str(lb, "hostname"); host != "" {
			hp := p.Index(i).Child("hostname")
			errs = append(errs, invalids(hp, host, validation.IsDNS1123Subdomain(host))...)
			if parseIPSloppy(host) != nil {
				errs = append(errs, field.Invalid(hp, host, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

// ingressWarnings is the strategy's WarningsOnCreate (the deprecated class annotation) and the
// /status strategy's WarningsOnUpdate (non-standard load balancer IPs); the main resource's
// update warns of nothing.
func ingressWarnings(obj, old map[string]any, opts Options) []string {
	if old == nil {
		_, set := stringMap(mapOf(obj["metadata"])["annotations"])["kubernetes.io/ingress.class"]
		if _, hasClass := mapOf(obj["spec"])["ingressClassName"].(string); set && !hasClass {
			return []string{`annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`}
		}
		return nil
	}
	if opts.Subresource != "status" {
		return nil
	}
	var out []string
	p := field.NewPath("status", "loadBalancer", "ingress")
	for i, raw := range listOf(mapOf(mapOf(obj["status"])["loadBalancer"])["ingress"]) {
		if ip := str(mapOf(raw), "ip"); ip != "" {
			out = append(out, ipWarnings(p.Index(i), ip)...)
		}
	}
	return out
}

func validateIngressClass(obj map[string]any, _ Options) field.ErrorList {
	return withDeclarative(ingressClassRules(obj), ingressClassDeclarative(obj))
}

func validateIngressClassUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	p := field.NewPath("spec", "controller")
	errs = append(errs, immutable(p, str(mapOf(obj["spec"]), "controller"), str(mapOf(old["spec"]), "controller"))...)
	errs = append(errs, ingressClassRules(obj)...)
	return withDeclarative(errs, ingressClassDeclarative(obj))
}

// ingressClassRules is ValidateIngressClass without the declarative parameters' kind and name.
func ingressClassRules(obj map[string]any) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	spec := mapOf(obj["spec"])
	p := field.NewPath("spec")
	controller := str(spec, "controller")
	if len(controller) > 250 {
		errs = append(errs, field.TooLong(p.Child("controller"), "", 250))
	}
	errs = append(errs, domainPrefixedPath(p.Child("controller"), controller)...)
	params, ok := spec["parameters"].(map[string]any)
	if !ok {
		return errs
	}
	pp := p.Child("parameters")
	if g, ok := params["apiGroup"].(string); ok {
		errs = append(errs, invalids(pp.Child("apiGroup"), g, validation.IsDNS1123Subdomain(g))...)
	}
	for _, key := range []string{"kind", "name"} {
		if v := str(params, key); v != "" {
			errs = append(errs, invalids(pp.Child(key), v, validation.IsValidPathSegmentName(v))...)
		}
	}
	scope, ok := params["scope"].(string)
	if !ok {
		return append(errs, field.Required(pp.Child("scope"), ""))
	}
	ns, hasNS := params["namespace"].(string)
	switch scope {
	case "Namespace":
		if !hasNS {
			errs = append(errs, field.Required(pp.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
		} else {
			errs = append(errs, invalids(pp.Child("namespace"), ns, validation.NameIsDNSLabel(ns, false))...)
		}
	case "Cluster":
		if hasNS {
			errs = append(errs, field.Forbidden(pp.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
		}
	default:
		errs = append(errs, field.NotSupported(pp.Child("scope"), scope, []string{"Cluster", "Namespace"}))
	}
	return errs
}

// ingressClassDeclarative: the parameters' kind and name are required.
func ingressClassDeclarative(obj map[string]any) field.ErrorList {
	params, ok := mapOf(obj["spec"])["parameters"].(map[string]any)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	for _, key := range []string{"kind", "name"} {
		if str(params, key) == "" {
			errs = append(errs, field.Required(field.NewPath("spec", "parameters", key), ""))
		}
	}
	return errs
}

// domainPrefixedPath is apimachinery's IsDomainPrefixedPath.
func domainPrefixedPath(p field.Path, v string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	host, path, ok := strings.Cut(v, "/")
	if !ok || host == "" || path == "" {
		return field.ErrorList{field.Invalid(p, v, `must be a domain-prefixed path (such as "acme.io/foo")`)}
	}
	errs := invalids(p, host, validation.IsDNS1123Subdomain(host))
	if !validation.MatchHTTPPath(path) {
		errs = append(errs, field.Invalid(p, path, validation.RegexError("Invalid path", validation.HTTPPathFmt)))
	}
	return errs
}

// networkPolicyOptions are NetworkPolicyValidationOptions.
type networkPolicyOptions struct {
	selector LabelSelectorOptions
	// oldCIDRs are the stored policy's CIDRs, accepted as they are.
	oldCIDRs map[string]bool
}

func validateNetworkPolicy(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	errs = append(errs, networkPolicySpec(mapOf(obj["spec"]), networkPolicyOptions{})...)
	return withDeclarative(errs, networkPolicyDeclarative(obj))
}

func validateNetworkPolicyUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	oldSpec := mapOf(old["spec"])
	var o networkPolicyOptions
	if len(ValidateLabelSelector(field.Path{}, mapOf(oldSpec["podSelector"]), LabelSelectorOptions{})) > 0 {
		o.selector.AllowInvalidLabelValue = true
	}
	o.oldCIDRs = map[string]bool{}
	eachIPBlock(oldSpec, func(_ field.Path, b map[string]any) {
		o.oldCIDRs[str(b, "cidr")] = true
		for _, e := range stringList(b["except"]) {
			o.oldCIDRs[e] = true
		}
	})
	errs := coreObjectMetaUpdate(obj, old)
	errs = append(errs, networkPolicySpec(mapOf(obj["spec"]), o)...)
	return withDeclarative(errs, networkPolicyDeclarative(obj))
}

// eachIPBlock calls f with each peer's ipBlock, ingress rules first, at the peer's path.
func eachIPBlock(spec map[string]any, f func(p field.Path, b map[string]any)) {
	for _, dir := range [][2]string{{"ingress", "from"}, {"egress", "to"}} {
		for i, rule := range listOf(spec[dir[0]]) {
			for j, peer := range listOf(mapOf(rule)[dir[1]]) {
				if b, ok := mapOf(peer)["ipBlock"].(map[string]any); ok {
					f(field.NewPath("spec", dir[0]).Index(i).Child(dir[1]).Index(j).Child("ipBlock"), b)
				}
			}
		}
	}
}

func networkPolicySpec(spec map[string]any, o networkPolicyOptions) field.ErrorList {
	p := field.NewPath("spec")
	errs := ValidateLabelSelector(p.Child("podSelector"), mapOf(spec["podSelector"]), o.selector)
	for _, dir := range [][2]string{{"ingress", "from"}, {"egress", "to"}} {
		for i, raw := range listOf(spec[dir[0]]) {
			rule := mapOf(raw)
			rp := p.Child(dir[0]).Index(i)
			for j, port := range listOf(rule["ports"]) {
				errs = append(errs, networkPolicyPort(rp.Child("ports").Index(j), mapOf(port))...)
			}
			for j, peer := range listOf(rule[dir[1]]) {
				errs = append(errs, networkPolicyPeer(rp.Child(dir[1]).Index(j), mapOf(peer), o)...)
			}
		}
	}
	types := stringList(spec["policyTypes"])
	if len(types) > 2 {
		return append(errs, field.Invalid(p.Child("policyTypes"), types, "may not specify more than two policyTypes"))
	}
	for i, t := range types {
		if t != "Ingress" && t != "Egress" {
			errs = append(errs, field.NotSupported(p.Child("policyTypes").Index(i), t, []string{"Ingress", "Egress"}))
		}
	}
	return errs
}

func networkPolicyPort(p field.Path, port map[string]any) field.ErrorList {
	var errs field.ErrorList
	if proto, ok := port["protocol"].(string); ok && proto != "TCP" && proto != "UDP" && proto != "SCTP" {
		errs = append(errs, field.NotSupported(p.Child("protocol"), proto, []string{"TCP", "UDP", "SCTP"}))
	}
	end, hasEnd := integer(port, "endPort")
	switch v := port["port"].(type) {
	case nil:
		if hasEnd {
			errs = append(errs, field.Invalid(p.Child("endPort"), end, "may not be specified when `port` is not specified"))
		}
	case string:
		if hasEnd {
			errs = append(errs, field.Invalid(p.Child("endPort"), end, "may not be specified when `port` is non-numeric"))
		}
		errs = append(errs, invalids(p.Child("port"), v, validation.IsValidPortName(v))...)
	default:
		n, _ := intOrString(v).(int64)
		errs = append(errs, invalids(p.Child("port"), n, validation.IsValidPortNum(n))...)
		if hasEnd {
			if end < n {
				errs = append(errs, field.Invalid(p.Child("endPort"), end, "must be greater than or equal to `port`"))
			}
			errs = append(errs, invalids(p.Child("endPort"), end, validation.IsValidPortNum(end))...)
		}
	}
	return errs
}

func networkPolicyPeer(p field.Path, peer map[string]any, o networkPolicyOptions) field.ErrorList {
	var errs field.ErrorList
	n := 0
	for _, key := range []string{"podSelector", "namespaceSelector"} {
		if sel, ok := peer[key].(map[string]any); ok {
			n++
			errs = append(errs, ValidateLabelSelector(p.Child(key), sel, o.selector)...)
		}
	}
	b, hasBlock := peer["ipBlock"].(map[string]any)
	if hasBlock {
		n++
		errs = append(errs, ipBlock(p.Child("ipBlock"), b, o.oldCIDRs)...)
	}
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a peer"))
	} else if n > 1 && hasBlock {
		errs = append(errs, field.Forbidden(p, "may not specify both ipBlock and another peer"))
	}
	return errs
}

// ipBlock is ValidateIPBlock without its required cidr (declarative).
func ipBlock(p field.Path, b map[string]any, oldCIDRs map[string]bool) field.ErrorList {
	cidr := str(b, "cidr")
	if cidr == "" {
		return nil
	}
	errs := cidrUnlessStored(p.Child("cidr"), cidr, oldCIDRs)
	outer := parseCIDRSloppy(cidr)
	if outer == nil {
		return errs
	}
	outerBits, _ := outer.Mask.Size()
	for i, except := range stringList(b["except"]) {
		ep := p.Child("except").Index(i)
		errs = append(errs, cidrUnlessStored(ep, except, oldCIDRs)...)
		inner := parseCIDRSloppy(except)
		if inner == nil {
			continue
		}
		innerBits, _ := inner.Mask.Size()
		if !outer.Contains(inner.IP) || outerBits >= innerBits {
			errs = append(errs, field.Invalid(ep, except, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}

// cidrUnlessStored is IsValidCIDRForLegacyField with the stored values accepted (a set: a
// policy of n blocks updated is checked in linear time).
func cidrUnlessStored(p field.Path, v string, stored map[string]bool) field.ErrorList {
	if stored[v] {
		return nil
	}
	return legacyCIDR(p, v, nil)
}

// parseCIDRSloppy is k8s.io/utils/net's ParseCIDRSloppy (net.ParseCIDR accepting leading zeros
// in IPv4 parts): the network, nil when v does not parse.
func parseCIDRSloppy(v string) *net.IPNet {
	addr, bits, ok := strings.Cut(v, "/")
	if !ok {
		return nil
	}
	ip := parseIPSloppy(addr)
	if ip == nil || !validPrefixLen(bits, addr) {
		return nil
	}
	n := 0
	for _, c := range bits {
		n = n*10 + int(c-'0')
	}
	size := 32
	if strings.Contains(addr, ":") {
		size = 128
	}
	m := net.CIDRMask(n, size)
	return &net.IPNet{IP: ip.Mask(m), Mask: m}
}

// networkPolicyDeclarative: every ipBlock's cidr is required.
func networkPolicyDeclarative(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	eachIPBlock(mapOf(obj["spec"]), func(p field.Path, b map[string]any) {
		if str(b, "cidr") == "" {
			errs = append(errs, field.Required(p.Child("cidr"), ""))
		}
	})
	return errs
}

// networkPolicyWarnings is the strategy's warnings on create and update: non-standard CIDRs in
// ipBlocks.
func networkPolicyWarnings(obj, _ map[string]any, _ Options) []string {
	var out []string
	eachIPBlock(mapOf(obj["spec"]), func(p field.Path, b map[string]any) {
		out = append(out, cidrWarnings(p.Child("cidr").String(), str(b, "cidr"))...)
		for k, except := range stringList(b["except"]) {
			out = append(out, cidrWarnings(p.Child("except").Index(k).String(), except)...)
		}
	})
	return out
}
