package registry

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
	"github.com/writepath/writepath/status"
)

// ServiceNetwork is what the Service REST allocates from: the service cluster IP range
// (kube-apiserver's --service-cluster-ip-range; one range, so a single-stack cluster) and the
// node port range (--service-node-port-range). A World that implements ServiceNetworker gives
// its own; otherwise Handle uses DefaultServiceNetwork.
type ServiceNetwork struct {
	// ClusterIPRange is the service CIDR: its family is the cluster's; the cluster IPs are
	// allocated from the stored ServiceCIDRs (the default one, "kubernetes", holds this range
	// on a real server), from this range only in a world that stores none.
	ClusterIPRange netip.Prefix
	// NodePortFirst and NodePortLast bound the node ports, both included.
	NodePortFirst, NodePortLast int
	// NextClusterIP, when set, chooses a free cluster IP (the apiserver draws one at random in
	// a ServiceCIDR); nil, or an answer that is not ok, free and in a ready ServiceCIDR, takes
	// the lowest free address above each range's static band (where Services that ask for an
	// address get theirs), then the lowest free one in it, range by range. used reports the
	// addresses taken: an IPAddress of that name exists or a stored Service holds it.
	NextClusterIP func(used func(netip.Addr) bool) (netip.Addr, bool)
	// NextNodePort, when set, chooses a free node port (the apiserver draws one at random); nil,
	// or an answer that is not ok, free and in the range, takes the lowest free port above the
	// range's static band, then the lowest in it.
	NextNodePort func(used func(int) bool) (int, bool)
}

// ServiceNetworker is implemented by a World whose Services allocate from a ServiceNetwork of
// its own.
type ServiceNetworker interface {
	ServiceNetwork() ServiceNetwork
}

// DefaultServiceNetwork is kube-apiserver 1.37's defaults: 10.0.0.0/24 and 30000-32767.
func DefaultServiceNetwork() ServiceNetwork {
	return ServiceNetwork{ClusterIPRange: netip.MustParsePrefix("10.0.0.0/24"), NodePortFirst: 30000, NodePortLast: 32767}
}

func (h *handler) serviceNetwork() ServiceNetwork {
	if sn, ok := h.w.(ServiceNetworker); ok {
		return sn.ServiceNetwork()
	}
	return DefaultServiceNetwork()
}

// svcSpec is a Service's spec as the allocator reads and writes it.
type svcSpec map[string]any

func (s svcSpec) str(k string) string       { v, _ := s[k].(string); return v }
func (s svcSpec) strings(k string) []string { return stringsOf(s[k]) }
func (s svcSpec) typ() string               { return s.str("type") }
func (s svcSpec) ports() []map[string]any   { return listOfMaps(s["ports"]) }
func (s svcSpec) hasSelector() bool         { m, _ := s["selector"].(map[string]any); return len(m) > 0 }
func (s svcSpec) setStrings(k string, v []string) {
	if v == nil {
		delete(s, k)
		return
	}
	l := make([]any, len(v))
	for i, e := range v {
		l[i] = e
	}
	s[k] = l
}

func stringsOf(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, _ := e.(string)
		out = append(out, s)
	}
	if l == nil {
		return nil
	}
	return out
}

func intOf(v any) int {
	switch n := v.(type) {
	case int64:
		return int(n)
	case float64:
		return int(n)
	}
	return 0
}

func (s svcSpec) needsClusterIP() bool { return s.typ() != "ExternalName" }

func (s svcSpec) needsNodePort() bool {
	switch s.typ() {
	case "NodePort":
		return true
	case "LoadBalancer":
		v, ok := s["allocateLoadBalancerNodePorts"].(bool)
		return !ok || v
	}
	return false
}

func (s svcSpec) needsHealthCheck() bool {
	return s.typ() == "LoadBalancer" && s.str("externalTrafficPolicy") == "Local"
}

func (s svcSpec) shouldAllocateNodePorts() bool {
	switch s.typ() {
	case "NodePort":
		return true
	case "LoadBalancer":
		v, _ := s["allocateLoadBalancerNodePorts"].(bool)
		return v
	}
	return false
}

func (s svcSpec) nodePorts() []int {
	var out []int
	for _, p := range s.ports() {
		if n := intOf(p["nodePort"]); n != 0 {
			out = append(out, n)
		}
	}
	return out
}

// serviceAllocation is the allocators' view of the world for one Service write. Cluster IPs
// are the MultiCIDRServiceAllocator's: an address is taken when an IPAddress
// (networking.k8s.io/v1) of that name exists, whoever made it, and an address is allocated by
// creating its IPAddress (ipAllocation); the ranges are the ServiceCIDRs' (ranges). Node ports
// are derived from the stored Services (the apiserver keeps them in a bitmap no client sees).
type serviceAllocation struct {
	h   *handler
	net ServiceNetwork
	// ranges are the ready ServiceCIDRs' prefixes of the cluster's family, the default
	// "kubernetes" ServiceCIDR's first; all holds those not ready too (a release finds its
	// allocator in any of them).
	ranges, all []netip.Prefix
	// ips are the addresses known taken or free: the cluster IPs of stored Services (a Service
	// whose IPAddress is missing has it back from the repair loop), and the addresses whose
	// IPAddress was looked up (taken) or created (used).
	ips   map[netip.Addr]bool
	err   error
	ports map[int]bool
	// svc names the Service the IPAddresses' parentRef points to.
	svcNamespace, svcName string
	// dryRun is a dry run's allocators: an IP drawn is the range's network address, a
	// requested IP is only checked against the range, a node port drawn is one past the
	// largest this request took (32769 first), a requested node port is only checked against
	// the ports taken (portallocator's PortAllocationOperation).
	dryRun bool
	taken  []int
}

var (
	ipAddressesGVR  = schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ipaddresses"}
	serviceCIDRsGVR = schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "servicecidrs"}
)

func (h *handler) serviceAllocation(svc map[string]any) (*serviceAllocation, error) {
	all, err := h.w.List(h.ctx, schema.GroupVersionResource{Version: "v1", Resource: "services"}, "")
	if err != nil {
		return nil, worldError(err, "List(services)")
	}
	a := &serviceAllocation{h: h, net: h.serviceNetwork(), ips: map[netip.Addr]bool{}, ports: map[int]bool{}, dryRun: h.dryRun,
		svcNamespace: metaString(svc, "namespace"), svcName: metaString(svc, "name")}
	for _, svc := range all {
		spec, _ := svc["spec"].(map[string]any)
		s := svcSpec(spec)
		for _, ip := range s.strings("clusterIPs") {
			if addr, err := netip.ParseAddr(ip); err == nil {
				a.ips[addr] = true
			}
		}
		for _, p := range s.nodePorts() {
			a.ports[p] = true
		}
		if n := intOf(s["healthCheckNodePort"]); n != 0 {
			a.ports[n] = true
		}
	}
	if a.ranges, a.all, err = h.serviceCIDRs(a.net); err != nil {
		return nil, err
	}
	return a, nil
}

// serviceCIDRs are the prefixes the cluster IPs are allocated from: the ServiceCIDRs' of the
// cluster's family (the MetaAllocator's allocators), ready ones (Ready not False and no
// deletion requested) in ready, the "kubernetes" one first and the others by name. A world
// that holds no ServiceCIDR allocates from ServiceNetwork's range, as if the default
// ServiceCIDR held it.
func (h *handler) serviceCIDRs(sn ServiceNetwork) (ready, all []netip.Prefix, err error) {
	objs, err := h.w.List(h.ctx, serviceCIDRsGVR, "")
	if err != nil {
		return nil, nil, worldError(err, "List(servicecidrs)")
	}
	if len(objs) == 0 {
		r := sn.ClusterIPRange.Masked()
		return []netip.Prefix{r}, []netip.Prefix{r}, nil
	}
	slices.SortFunc(objs, func(x, y map[string]any) int {
		nx, ny := metaString(x, "name"), metaString(y, "name")
		switch {
		case nx == ny:
			return 0
		case nx == "kubernetes":
			return -1
		case ny == "kubernetes":
			return 1
		}
		return strings.Compare(nx, ny)
	})
	six := sn.ClusterIPRange.Addr().Is6()
	seenReady, seen := map[netip.Prefix]bool{}, map[netip.Prefix]bool{}
	for _, o := range objs {
		ok := metaOf(o)["deletionTimestamp"] == nil
		st, _ := o["status"].(map[string]any)
		for _, c := range listOfMaps(st["conditions"]) {
			if c["type"] == "Ready" {
				ok = ok && c["status"] == "True"
				break
			}
		}
		spec, _ := o["spec"].(map[string]any)
		for _, c := range stringsOf(spec["cidrs"]) {
			p, err := netip.ParsePrefix(c)
			if err != nil || p.Addr().Is6() != six {
				continue
			}
			p = p.Masked()
			if !seen[p] {
				seen[p] = true
				all = append(all, p)
			}
			if ok && !seenReady[p] {
				seenReady[p] = true
				ready = append(ready, p)
			}
		}
	}
	return ready, all, nil
}

var (
	errIPAllocated       = errors.New("provided IP is already allocated")
	errMismatchedNetwork = errors.New("the provided network does not match the current range")
	errPortAllocated     = errors.New("provided port is already allocated")
	errNoFreeClusterP    = errors.New("range is full")
)

// prefixContainsIP is servicecidr.PrefixContainsIP: the prefix holds ip, which is not its
// network address nor, for IPv4, its broadcast address.
func prefixContainsIP(p netip.Prefix, ip netip.Addr) bool {
	p = p.Masked()
	if ip == p.Addr() || isBroadcast(p, ip) {
		return false
	}
	return p.Contains(ip)
}

func (a *serviceAllocation) rangeOf(addr netip.Addr, among []netip.Prefix) (netip.Prefix, bool) {
	for _, p := range among {
		if prefixContainsIP(p, addr) {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

// allocateIP takes ip, or the next free address when ip is "": the IPAddress of a Service
// write is created (through the API, as the apiserver's loopback client) before the Service is
// stored; a dry run creates nothing.
func (a *serviceAllocation) allocateIP(ip string) (string, error) {
	if ip != "" {
		addr, err := netip.ParseAddr(ip)
		if err != nil {
			return "", err
		}
		if a.dryRun {
			// The dry-run allocator checks the range only (ipallocator's allocateService).
			if len(a.all) > 0 {
				r := a.all[0]
				first, last := r.Addr().Next(), lastAddress(r)
				if addr.Less(first) || last.Less(addr) {
					return "", fmt.Errorf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", addr, r)
				}
			}
			return ip, nil
		}
		if _, ok := a.rangeOf(addr, a.ranges); !ok {
			return "", errMismatchedNetwork
		}
		if a.used(addr) {
			if a.err != nil {
				return "", a.err
			}
			return "", errIPAllocated
		}
		if err := a.createIPAddress(addr); err != nil {
			return "", err
		}
		return ip, nil
	}
	if a.dryRun {
		if len(a.all) == 0 {
			return "", errNoFreeClusterP
		}
		return a.all[0].Addr().String(), nil
	}
	if a.net.NextClusterIP != nil {
		if addr, ok := a.net.NextClusterIP(a.used); ok && !a.used(addr) {
			if _, in := a.rangeOf(addr, a.ranges); in {
				if err := a.createIPAddress(addr); err == nil {
					return addr.String(), nil
				} else if !errors.Is(err, errIPAllocated) {
					return "", err
				}
			}
		}
	}
	for _, r := range a.ranges {
		size := rangeSize(r)
		band := staticBand(size, 16, 256)
		for _, start := range []int{band, 0} {
			addr := r.Addr().Next()
			for i := 0; i < start; i++ {
				addr = addr.Next()
			}
			for i := start; i < size && a.err == nil; i++ {
				if !a.used(addr) {
					err := a.createIPAddress(addr)
					if err == nil {
						return addr.String(), nil
					}
					if !errors.Is(err, errIPAllocated) {
						return "", err
					}
				}
				addr = addr.Next()
			}
		}
	}
	if a.err != nil {
		return "", a.err
	}
	return "", errNoFreeClusterP
}

// used reports whether addr is taken: a stored Service holds it or its IPAddress exists
// (looked up once; a failed read is kept in a.err and the address counted taken).
func (a *serviceAllocation) used(addr netip.Addr) bool {
	if v, ok := a.ips[addr]; ok {
		return v
	}
	o, err := a.h.w.Get(a.h.ctx, ipAddressesGVR, "", addr.String())
	if err != nil {
		if a.err == nil {
			a.err = worldError(err, "Get(ipaddresses)")
		}
		return true
	}
	a.ips[addr] = o != nil
	return o != nil
}

// lastAddress is the allocator's last address of r: its broadcast address's predecessor for
// IPv4, its last address for IPv6.
func lastAddress(r netip.Prefix) netip.Addr {
	b := r.Masked().Addr().AsSlice()
	n := 8*len(b) - r.Bits()
	for i := len(b) - 1; i >= 0 && n > 0; i-- {
		if n >= 8 {
			b[i] = 0xff
			n -= 8
		} else {
			b[i] |= ^uint8(0) >> (8 - n)
			n = 0
		}
	}
	last, _ := netip.AddrFromSlice(b)
	if last.Is4() {
		return last.Prev()
	}
	return last
}

// rangeSize is the number of addresses the allocator hands out: the range without its network
// address and, for IPv4, its broadcast address (capped, as the apiserver's bitmap is).
func rangeSize(r netip.Prefix) int {
	bits := r.Addr().BitLen() - r.Bits()
	if bits > 16 {
		bits = 16
	}
	n := 1 << bits
	if r.Addr().Is4() {
		return n - 2
	}
	return n - 1
}

func isBroadcast(r netip.Prefix, addr netip.Addr) bool {
	if !r.Addr().Is4() {
		return false
	}
	b := r.Addr().As4()
	host := 32 - r.Bits()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v |= (1 << host) - 1
	a := addr.As4()
	return uint32(a[0])<<24|uint32(a[1])<<16|uint32(a[2])<<8|uint32(a[3]) == v
}

// staticBand is the apiserver's calculateRangeOffset: the low part of a range kept for
// requested values, min(max(lo, size/16), hi).
func staticBand(size, lo, hi int) int {
	b := size / 16
	if b < lo {
		b = lo
	}
	if b > hi {
		b = hi
	}
	if b > size {
		b = 0
	}
	return b
}

// allocatePort takes a requested node port.
func (a *serviceAllocation) allocatePort(p int) error {
	if a.dryRun {
		if a.ports[p] {
			return errPortAllocated
		}
		a.ports[p] = true
		a.taken = append(a.taken, p)
		return nil
	}
	if p < a.net.NodePortFirst || p > a.net.NodePortLast {
		return fmt.Errorf("provided port is not in the valid range. The range of valid ports is %d-%d", a.net.NodePortFirst, a.net.NodePortLast)
	}
	if a.ports[p] {
		return errPortAllocated
	}
	a.ports[p] = true
	return nil
}

// nextPort takes the next free node port.
func (a *serviceAllocation) nextPort() (int, error) {
	if a.dryRun {
		last := 32768
		if len(a.taken) > 0 {
			last = 0
			for _, p := range a.taken {
				last = max(last, p)
			}
		}
		a.taken = append(a.taken, last+1)
		return last + 1, nil
	}
	used := func(p int) bool { return a.ports[p] }
	if a.net.NextNodePort != nil {
		if p, ok := a.net.NextNodePort(used); ok && p >= a.net.NodePortFirst && p <= a.net.NodePortLast && !used(p) {
			a.ports[p] = true
			return p, nil
		}
	}
	size := a.net.NodePortLast - a.net.NodePortFirst + 1
	band := size / 32
	if band < 16 {
		band = 16
	}
	if band > 128 {
		band = 128
	}
	for _, start := range []int{band, 0} {
		for p := a.net.NodePortFirst + start; p <= a.net.NodePortLast; p++ {
			if !a.ports[p] {
				a.ports[p] = true
				return p, nil
			}
		}
	}
	return 0, errors.New("range is full")
}

// serviceBegin is the Service REST's BeginCreate (old nil) or BeginUpdate
// (pkg/registry/core/service/storage: beginCreate, beginUpdate and alloc.go), after mutating
// admission and before the strategy: on update the stored cluster IPs and node ports the write
// left out are kept (patchAllocatedValues); clusterIP and clusterIPs are made consistent
// (normalizeClusterIPs); the IP family fields are defaulted and checked (initIPFamilyFields:
// SingleStack, or RequireDualStack for a headless Service without selector, ipFamilies from
// the cluster's family); cluster IPs are allocated (or the requested ones taken: 422 "failed to
// allocate IP ..."), and node ports for NodePort and LoadBalancer Services, and a health check
// node port for a LoadBalancer with externalTrafficPolicy Local. It returns the object to go on
// with (a copy when anything changed).
func (h *handler) serviceBegin(obj, old map[string]any) (map[string]any, error) {
	obj, err := value.DeepCopyMap(obj)
	if err != nil {
		return nil, err
	}
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	s := svcSpec(spec)
	var o svcSpec
	if old != nil {
		oc, err := value.DeepCopyMap(old)
		if err != nil {
			return nil, err
		}
		os, _ := oc["spec"].(map[string]any)
		if os == nil {
			os = map[string]any{}
		}
		o = svcSpec(os)
		h.defaultOnReadService(o)
		patchAllocatedValues(s, o)
	}
	normalizeClusterIPs(s, o)
	a, err := h.serviceAllocation(obj)
	if err != nil {
		return nil, err
	}
	h.svc = &serviceTxn{}
	name := metaString(obj, "name")
	if err := h.initIPFamilyFields(obj, s, old, o, a); err != nil {
		return nil, err
	}
	if o == nil {
		if err := allocClusterIPs(s, a, name); err != nil {
			return nil, err
		}
		if s.typ() == "NodePort" || s.typ() == "LoadBalancer" {
			if err := initNodePorts(s, a, name); err != nil {
				return nil, err
			}
		}
		if s.needsHealthCheck() {
			if err := allocHealthCheckNodePort(s, a); err != nil {
				return nil, status.InternalError(err)
			}
		}
		return obj, nil
	}
	if err := h.updateClusterIPs(s, o, a, name); err != nil {
		return nil, err
	}
	if s.typ() == "NodePort" || s.typ() == "LoadBalancer" {
		if err := updateNodePorts(s, o, a, name); err != nil {
			return nil, err
		}
	}
	if !o.needsHealthCheck() && s.needsHealthCheck() {
		if err := allocHealthCheckNodePort(s, a); err != nil {
			return nil, status.InternalError(err)
		}
	}
	dropTypeDependentFields(obj, s, o)
	return obj, nil
}

// dropTypeDependentFields is the Service strategy's PrepareForUpdate step of the same name: what
// the old type needed and the new one does not is cleared when the write left it as it was
// (cluster IPs and families of a Service that became ExternalName, node ports, the health
// check node port, allocateLoadBalancerNodePorts, loadBalancerClass, externalTrafficPolicy),
// and a Service that is not a LoadBalancer has an empty load balancer status.
func dropTypeDependentFields(obj map[string]any, s, o svcSpec) {
	if o.needsClusterIP() && !s.needsClusterIP() {
		if o.str("clusterIP") == s.str("clusterIP") && sameStrings(o.strings("clusterIPs"), s.strings("clusterIPs")) {
			delete(s, "clusterIP")
			delete(s, "clusterIPs")
		}
		if value.Equal(o["ipFamilies"], s["ipFamilies"]) {
			delete(s, "ipFamilies")
		}
		if o.str("ipFamilyPolicy") == s.str("ipFamilyPolicy") {
			delete(s, "ipFamilyPolicy")
		}
	}
	typeNeedsNodePort := func(x svcSpec) bool { return x.typ() == "NodePort" || x.typ() == "LoadBalancer" }
	if typeNeedsNodePort(o) && !typeNeedsNodePort(s) {
		oldPorts := map[int]bool{}
		for _, p := range o.nodePorts() {
			oldPorts[p] = true
		}
		superset := true
		for _, p := range s.nodePorts() {
			superset = superset && oldPorts[p]
		}
		if superset {
			for _, p := range s.ports() {
				delete(p, "nodePort")
			}
		}
	}
	if o.needsHealthCheck() && !s.needsHealthCheck() && intOf(o["healthCheckNodePort"]) == intOf(s["healthCheckNodePort"]) {
		delete(s, "healthCheckNodePort")
	}
	if o.typ() == "LoadBalancer" && s.typ() != "LoadBalancer" {
		ov, ook := o["allocateLoadBalancerNodePorts"].(bool)
		nv, nok := s["allocateLoadBalancerNodePorts"].(bool)
		if ook && nok && ov == nv {
			delete(s, "allocateLoadBalancerNodePorts")
		}
		if value.Equal(o["loadBalancerClass"], s["loadBalancerClass"]) {
			delete(s, "loadBalancerClass")
		}
	}
	accessible := func(x svcSpec) bool {
		l, _ := x["externalIPs"].([]any)
		return x.typ() == "LoadBalancer" || x.typ() == "NodePort" || x.typ() == "ClusterIP" && len(l) > 0
	}
	if accessible(o) && !accessible(s) && o.str("externalTrafficPolicy") == s.str("externalTrafficPolicy") {
		delete(s, "externalTrafficPolicy")
	}
	if s.typ() != "LoadBalancer" {
		st, _ := obj["status"].(map[string]any)
		st = maps.Clone(st)
		if st == nil {
			st = map[string]any{}
		}
		st["loadBalancer"] = map[string]any{}
		obj["status"] = st
	}
}

func serviceInvalid(name string, errs field.ErrorList) error {
	return status.Invalid(status.GroupKind{Kind: "Service"}, name, errs)
}

// defaultOnReadService is the REST's decorator on a stored Service: clusterIPs from clusterIP,
// the IP families of an object stored before dual-stack, no internalTrafficPolicy on an
// ExternalName Service.
func (h *handler) defaultOnReadService(s svcSpec) {
	normalizeClusterIPs(s, nil)
	if s.needsClusterIP() && len(s.strings("ipFamilies")) == 0 {
		primary := familyOfPrefix(h.serviceNetwork().ClusterIPRange)
		switch {
		case s.str("clusterIP") == "None" && !s.hasSelector():
			s["ipFamilyPolicy"] = "RequireDualStack"
			s.setStrings("ipFamilies", []string{primary, otherFamily(primary)})
		case s.str("clusterIP") == "None":
			s["ipFamilyPolicy"] = "SingleStack"
			s.setStrings("ipFamilies", []string{primary})
		default:
			ips := s.strings("clusterIPs")
			fams := make([]string, len(ips))
			for i, ip := range ips {
				fams[i] = familyOf(ip)
			}
			s.setStrings("ipFamilies", fams)
			if len(fams) == 1 {
				s["ipFamilyPolicy"] = "SingleStack"
			} else if len(fams) == 2 {
				s["ipFamilyPolicy"] = "RequireDualStack"
			}
		}
	}
	if s.typ() == "ExternalName" {
		delete(s, "internalTrafficPolicy")
	}
}

func familyOfPrefix(p netip.Prefix) string {
	if p.Addr().Is6() {
		return "IPv6"
	}
	return "IPv4"
}

func otherFamily(f string) string {
	if f == "IPv4" {
		return "IPv6"
	}
	return "IPv4"
}

// familyOf is the family of an address written as the apiserver parses it (leading zeros
// allowed in IPv4), "unknown" when it is none.
func familyOf(ip string) string {
	if addr, err := netip.ParseAddr(ip); err == nil {
		if addr.Is4() || addr.Is4In6() && !strings.Contains(ip, ":") {
			return "IPv4"
		}
		return "IPv6"
	}
	parts := strings.Split(ip, ".")
	if len(parts) == 4 {
		for _, p := range parts {
			if p == "" || len(p) > 3 || strings.Trim(p, "0123456789") != "" {
				return "unknown"
			}
		}
		return "IPv4"
	}
	return "unknown"
}

// patchAllocatedValues keeps, on update, what the write left out of what was allocated: the
// cluster IPs, each port's node port (by port name, unless another port took it) and the health
// check node port.
func patchAllocatedValues(s, o svcSpec) {
	if o.needsClusterIP() && s.needsClusterIP() {
		if s.str("clusterIP") == "" {
			if v, ok := o["clusterIP"]; ok {
				s["clusterIP"] = v
			}
		}
		if len(s.strings("clusterIPs")) == 0 && len(o.strings("clusterIPs")) > 0 {
			s["clusterIPs"] = o["clusterIPs"]
		}
	}
	if o.needsNodePort() && s.needsNodePort() {
		oldUsed, newUsed := map[int]bool{}, map[int]bool{}
		for _, p := range o.nodePorts() {
			oldUsed[p] = true
		}
		for _, p := range s.nodePorts() {
			newUsed[p] = true
		}
		byName := map[string]int{}
		for _, p := range o.ports() {
			n, _ := p["name"].(string)
			byName[n] = intOf(p["nodePort"])
		}
		for _, p := range s.ports() {
			if intOf(p["nodePort"]) != 0 {
				continue
			}
			n, _ := p["name"].(string)
			v := byName[n]
			if !(oldUsed[v] && newUsed[v]) && v != 0 {
				p["nodePort"] = int64(v)
			}
		}
	}
	if o.needsHealthCheck() && s.needsHealthCheck() && intOf(s["healthCheckNodePort"]) == 0 {
		if v, ok := o["healthCheckNodePort"]; ok {
			s["healthCheckNodePort"] = v
		}
	}
}

// normalizeClusterIPs makes clusterIPs follow clusterIP where the client set only one of them.
func normalizeClusterIPs(s, o svcSpec) {
	ip := s.str("clusterIP")
	if o == nil {
		if ip != "" && len(s.strings("clusterIPs")) == 0 {
			s.setStrings("clusterIPs", []string{ip})
		}
		return
	}
	oldIPs := o.strings("clusterIPs")
	if len(oldIPs) > 0 && len(s.strings("clusterIPs")) == 0 && o.str("clusterIP") == ip {
		s["clusterIPs"] = o["clusterIPs"]
	}
	if o.str("clusterIP") != ip {
		same := sameStrings(oldIPs, s.strings("clusterIPs"))
		if o.str("clusterIP") != "" && ip == "" {
			if same {
				delete(s, "clusterIPs")
			}
		} else if same {
			s.setStrings("clusterIPs", []string{ip})
		}
	}
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// initIPFamilyFields defaults and checks ipFamilyPolicy and ipFamilies against the cluster's one
// family.
func (h *handler) initIPFamilyFields(obj map[string]any, s svcSpec, old map[string]any, o svcSpec, a *serviceAllocation) error {
	if s.typ() == "ExternalName" {
		return nil
	}
	if o != nil && matchingPreferDualStack(s, o) {
		return nil
	}
	if _, ok := s["ipFamilyPolicy"].(string); !ok {
		switch {
		case o != nil && o.str("ipFamilyPolicy") != "":
			s["ipFamilyPolicy"] = o["ipFamilyPolicy"]
		case s.str("clusterIP") == "None" && !s.hasSelector():
			s["ipFamilyPolicy"] = "RequireDualStack"
		default:
			s["ipFamilyPolicy"] = "SingleStack"
		}
	}
	var oldObj map[string]any
	if o != nil {
		oldObj = map[string]any{"spec": map[string]any(o)}
		if md, ok := old["metadata"]; ok {
			oldObj["metadata"] = md
		}
	}
	name := metaString(obj, "name")
	if el := validation.ServiceClusterIPsRelatedFields(obj, oldObj); len(el) != 0 {
		return serviceInvalid(name, el)
	}
	policy := s.str("ipFamilyPolicy")
	polPath := field.NewPath("spec", "ipFamilyPolicy")
	var el field.ErrorList
	if o != nil {
		if policy == "SingleStack" {
			if ips := s.strings("clusterIPs"); sameStrings(o.strings("clusterIPs"), ips) && len(ips) > 1 {
				s.setStrings("clusterIPs", ips[:1])
			}
			if fams := s.strings("ipFamilies"); sameStrings(o.strings("ipFamilies"), fams) && len(fams) > 1 {
				s.setStrings("ipFamilies", fams[:1])
			}
		} else {
			if ips := s.strings("clusterIPs"); len(ips) != 0 && len(ips) < len(o.strings("clusterIPs")) {
				el = append(el, field.Invalid(polPath, policy, "must be 'SingleStack' to release the secondary cluster IP"))
			}
			if fams := s.strings("ipFamilies"); len(fams) != 0 && len(fams) < len(o.strings("ipFamilies")) {
				el = append(el, field.Invalid(polPath, policy, "must be 'SingleStack' to release the secondary IP family"))
			}
		}
	}
	if policy == "SingleStack" {
		if len(s.strings("clusterIPs")) == 2 {
			el = append(el, field.Invalid(polPath, policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
		}
		if len(s.strings("ipFamilies")) == 2 {
			el = append(el, field.Invalid(polPath, policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
		}
	}
	primary := familyOfPrefix(a.net.ClusterIPRange)
	fams := s.strings("ipFamilies")
	ips := s.strings("clusterIPs")
	for i, ip := range ips {
		if ip == "None" {
			break
		}
		fam := familyOf(ip)
		if i >= len(fams) {
			if fam != primary {
				el = append(el, field.Invalid(field.NewPath("spec", "clusterIPs").Index(i), ips, fam+" is not configured on this cluster"))
			} else {
				fams = append(fams, fam)
			}
		}
	}
	if len(el) > 0 {
		return serviceInvalid(name, el)
	}
	if s.str("clusterIP") == "None" && !s.hasSelector() {
		if len(fams) == 0 {
			fams = []string{primary}
		}
		if len(fams) < 2 && policy != "SingleStack" {
			fams = append(fams, otherFamily(fams[0]))
		}
		s.setStrings("ipFamilies", fams)
		return nil
	}
	if policy == "RequireDualStack" {
		el = append(el, field.Invalid(polPath, policy, "this cluster is not configured for dual-stack services"))
	}
	for i, f := range fams {
		if f != primary {
			el = append(el, field.Invalid(field.NewPath("spec", "ipFamilies").Index(i), f, "not configured on this cluster"))
		}
	}
	if len(el) > 0 {
		return serviceInvalid(name, el)
	}
	if len(fams) == 0 {
		fams = []string{primary}
	}
	s.setStrings("ipFamilies", fams)
	return nil
}

// matchingPreferDualStack is isMatchingPreferDualStackClusterIPFields: an update of a
// PreferDualStack Service that leaves its type, cluster IPs and families as they are.
func matchingPreferDualStack(s, o svcSpec) bool {
	pol, ok := s["ipFamilyPolicy"].(string)
	if !ok || o.typ() != s.typ() {
		return false
	}
	switch s.typ() {
	case "ClusterIP", "NodePort", "LoadBalancer":
	default:
		return false
	}
	if pol != "PreferDualStack" {
		return false
	}
	if op, ok := o["ipFamilyPolicy"].(string); ok && op != "PreferDualStack" {
		return false
	}
	return sameStrings(o.strings("clusterIPs"), s.strings("clusterIPs")) && sameStrings(o.strings("ipFamilies"), s.strings("ipFamilies"))
}

// allocClusterIPs gives a Service that needs them its cluster IPs (one a family), or takes the
// ones it asked for.
func allocClusterIPs(s svcSpec, a *serviceAllocation, name string) error {
	if s.typ() == "ExternalName" {
		return nil
	}
	ips := s.strings("clusterIPs")
	if len(ips) > 0 && ips[0] == "None" {
		return nil
	}
	fams := s.strings("ipFamilies")
	for len(ips) < len(fams) {
		ips = append(ips, "")
	}
	for i := range fams {
		if i > 0 {
			break // a single-stack cluster: initIPFamilyFields refused a second family
		}
		got, err := a.allocateIP(ips[i])
		var ie *internalError
		if errors.As(err, &ie) {
			return err
		}
		if err != nil {
			detail := "failed to allocate IP: " + err.Error()
			if ips[i] != "" {
				detail = fmt.Sprintf("failed to allocate IP %s: %v", ips[i], err)
			}
			if ips[i] == "" && errors.Is(err, errNoFreeClusterP) {
				return status.InternalError(fmt.Errorf("failed to allocate a serviceIP for Service %q: %w", name, err))
			}
			return serviceInvalid(name, field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), s.strings("clusterIPs"), detail)})
		}
		ips[i] = got
		if i == 0 {
			s["clusterIP"] = got
		}
	}
	s.setStrings("clusterIPs", ips)
	return nil
}

// updateClusterIPs is the update's allocation: cluster IPs for a Service that stops being
// ExternalName, and the release of those of a Service that becomes one (done once the update
// succeeds); nothing else changes the addresses of a single-stack Service.
func (h *handler) updateClusterIPs(s, o svcSpec, a *serviceAllocation, name string) error {
	if matchingPreferDualStack(s, o) {
		return nil
	}
	if o.typ() == "ExternalName" && s.typ() != "ExternalName" {
		return allocClusterIPs(s, a, name)
	}
	if ips := o.strings("clusterIPs"); len(ips) > 0 && ips[0] == "None" {
		return nil
	}
	if s.typ() == "ExternalName" {
		h.svc.release = o.strings("clusterIPs")
	}
	return nil
}

// initNodePorts gives each port of a NodePort or LoadBalancer Service its node port (one per
// port number, a requested one taken as it is).
func initNodePorts(s svcSpec, a *serviceAllocation, name string) error {
	byPort := map[int]int{}
	ports := s.ports()
	for i, p := range ports {
		np := intOf(p["nodePort"])
		if np == 0 && !s.shouldAllocateNodePorts() {
			continue
		}
		port := intOf(p["port"])
		allocated := byPort[port]
		if allocated == 0 {
			req := 0
			for _, q := range ports {
				if intOf(q["port"]) == port && intOf(q["nodePort"]) != 0 {
					req = intOf(q["nodePort"])
					break
				}
			}
			if req != 0 {
				if err := a.allocatePort(req); err != nil {
					return serviceInvalid(name, field.ErrorList{field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), int64(req), err.Error())})
				}
				p["nodePort"] = int64(req)
				byPort[port] = req
			} else {
				n, err := a.nextPort()
				if err != nil {
					return status.InternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
				}
				p["nodePort"] = int64(n)
				byPort[port] = n
			}
		} else if np != allocated {
			if np == 0 {
				p["nodePort"] = int64(allocated)
			} else if err := a.allocatePort(np); err != nil {
				return serviceInvalid(name, field.ErrorList{field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), int64(np), err.Error())})
			}
		}
	}
	return nil
}

// updateNodePorts takes the node ports an update adds and gives the ports without one theirs.
func updateNodePorts(s, o svcSpec, a *serviceAllocation, name string) error {
	oldPorts := map[int]bool{}
	for _, p := range o.nodePorts() {
		oldPorts[p] = true
	}
	taken := map[int]bool{}
	type protoPort struct {
		proto string
		port  int
	}
	seen := map[protoPort]bool{}
	for i, p := range s.ports() {
		np := intOf(p["nodePort"])
		if np == 0 && !s.shouldAllocateNodePorts() {
			continue
		}
		if np != 0 {
			if !oldPorts[np] && !taken[np] {
				if err := a.allocatePort(np); err != nil {
					return serviceInvalid(name, field.ErrorList{field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), int64(np), err.Error())})
				}
				taken[np] = true
			}
		} else {
			n, err := a.nextPort()
			if err != nil {
				return status.InternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
			}
			p["nodePort"] = int64(n)
			np = n
		}
		proto, _ := p["protocol"].(string)
		k := protoPort{proto, np}
		if seen[k] {
			return status.InternalError(fmt.Errorf("duplicate nodePort: {%s %d}", proto, np))
		}
		seen[k] = true
	}
	return nil
}

// allocHealthCheckNodePort takes the requested health check node port or the next free one.
func allocHealthCheckNodePort(s svcSpec, a *serviceAllocation) error {
	if hc := intOf(s["healthCheckNodePort"]); hc != 0 {
		if err := a.allocatePort(hc); err != nil {
			return fmt.Errorf("failed to allocate requested HealthCheck NodePort %d: %v", hc, err)
		}
		return nil
	}
	n, err := a.nextPort()
	if err != nil {
		return fmt.Errorf("failed to allocate a HealthCheck NodePort %d: %v", n, err)
	}
	s["healthCheckNodePort"] = int64(n)
	return nil
}

// LoopbackUser and LoopbackUserAgent are kube-apiserver's loopback client, through which its
// own code writes (the Service REST's IPAddresses, its controllers): managedFields manager
// "kube-apiserver".
var LoopbackUser = User{Name: "system:apiserver", Groups: []string{"system:authenticated", "system:masters"}}

// LoopbackUserAgent is the loopback client's User-Agent.
const LoopbackUserAgent = "kube-apiserver/v1.37.2 (linux/amd64) kubernetes/writepath"

// loopback answers a request the apiserver sends itself (its loopback client) over the same
// world, at the same time.
func (h *handler) loopback(method, path string, body []byte) (Response, []Write, error) {
	return Handle(h.ctx, h.w, Request{Method: method, Path: path, Body: body, User: LoopbackUser, UserAgent: LoopbackUserAgent,
		Now: h.req.Now, ObjectOnly: true})
}

// createIPAddress is ipallocator's createIPAddress: an IPAddress named by addr, labelled with
// its family and ipallocator.k8s.io, whose parentRef is the Service, created through the API.
// An existing one is errIPAllocated; another refusal is an error with the Status's message.
func (a *serviceAllocation) createIPAddress(addr netip.Addr) error {
	fam := "IPv4"
	if addr.Is6() {
		fam = "IPv6"
	}
	obj := map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress",
		"metadata": map[string]any{"name": addr.String(), "labels": map[string]any{
			"ipaddress.kubernetes.io/ip-family": fam, "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"}},
		"spec": map[string]any{"parentRef": map[string]any{"resource": "services", "namespace": a.svcNamespace, "name": a.svcName}}}
	body, err := codec.EncodeJSON(obj)
	if err != nil {
		return err
	}
	resp, writes, err := a.h.loopback("POST", "/apis/networking.k8s.io/v1/ipaddresses", body)
	if err != nil {
		return &internalError{err: err}
	}
	if resp.Code == 409 && statusReason(resp) == "AlreadyExists" {
		a.ips[addr] = true
		return errIPAllocated
	}
	if resp.Code >= 300 {
		return errors.New(statusMessage(resp))
	}
	a.ips[addr] = true
	a.h.svc.created = append(a.h.svc.created, writes...)
	return nil
}

func statusReason(r Response) string  { s, _ := r.Object["reason"].(string); return s }
func statusMessage(r Response) string { s, _ := r.Object["message"].(string); return s }

// serviceTxn is what a Service write did to the IPAddresses before the Service is stored (the
// allocators' transaction): created are the writes of the IPAddresses it created, release the
// addresses to release once the write succeeds.
type serviceTxn struct {
	created []Write
	release []string
}

// revertWrites are the writes of a Service write that failed after its allocation: the
// IPAddresses it created, and their deletion (the transaction's Revert).
func (h *handler) revertWrites() []Write {
	if h.svc == nil || len(h.svc.created) == 0 || h.dryRun {
		return nil
	}
	writes := slices.Clone(h.svc.created)
	for _, c := range h.svc.created {
		if c.Delete {
			continue
		}
		last := ownTop(c.Object)
		ownMeta(last)["resourceVersion"] = h.w.NextResourceVersion()
		writes = append(writes, Write{Delete: true, Resource: c.Resource, Namespace: c.Namespace, Name: c.Name, Object: last})
	}
	return writes
}

// releaseIPs deletes the IPAddresses of ips through the API (ipallocator's Release: an address
// no ServiceCIDR holds has no allocator and is left; a failed deletion is ignored).
func (h *handler) releaseIPs(ips []string) ([]Write, error) {
	if h.dryRun || len(ips) == 0 {
		return nil, nil
	}
	_, all, err := h.serviceCIDRs(h.serviceNetwork())
	if err != nil {
		return nil, err
	}
	var writes []Write
	for _, ip := range ips {
		addr, err := netip.ParseAddr(ip)
		if err != nil {
			continue
		}
		in := false
		for _, p := range all {
			in = in || prefixContainsIP(p, addr)
		}
		if !in {
			continue
		}
		_, w, err := h.loopback("DELETE", "/apis/networking.k8s.io/v1/ipaddresses/"+addr.String(), nil)
		if err != nil {
			return nil, err
		}
		writes = append(writes, w...)
	}
	return writes, nil
}

// serviceIPs are the cluster IPs a stored Service holds (releaseClusterIPs): none for an
// ExternalName or headless Service.
func (h *handler) serviceIPs(svc map[string]any) []string {
	spec, _ := svc["spec"].(map[string]any)
	if spec == nil {
		return nil
	}
	s := svcSpec(maps.Clone(spec))
	normalizeClusterIPs(s, nil)
	if !s.needsClusterIP() {
		return nil
	}
	ips := s.strings("clusterIPs")
	if len(ips) > 0 && ips[0] == "None" {
		return nil
	}
	return ips
}

// releaseService is the Service REST's AfterDelete: the deleted Service's cluster IPs are
// released (not on a dry run).
func (h *handler) releaseService(svc map[string]any) ([]Write, error) {
	return h.releaseIPs(h.serviceIPs(svc))
}

// decorate is the Service store's Decorator on what it answers (a Service, a ServiceList's
// items): an ExternalName Service shows no internalTrafficPolicy (defaultOnReadInternalTrafficPolicy:
// one that was a ClusterIP Service keeps it in storage).
func (h *handler) decorate(obj map[string]any) map[string]any {
	if h.ep == nil || obj == nil || !h.isServiceResource() {
		return obj
	}
	items, ok := obj["items"].([]any)
	if !ok {
		if d, changed := withoutExternalNameITP(obj); changed {
			return d
		}
		return obj
	}
	var out []any
	for i, it := range items {
		m, _ := it.(map[string]any)
		if d, changed := withoutExternalNameITP(m); changed {
			if out == nil {
				out = slices.Clone(items)
			}
			out[i] = d
		}
	}
	if out == nil {
		return obj
	}
	c := maps.Clone(obj)
	c["items"] = out
	return c
}

// withoutExternalNameITP is o without spec.internalTrafficPolicy when o is an ExternalName
// Service that has one (a copy; changed says so).
func withoutExternalNameITP(o map[string]any) (map[string]any, bool) {
	spec, _ := o["spec"].(map[string]any)
	if spec["type"] != "ExternalName" {
		return o, false
	}
	if _, ok := spec["internalTrafficPolicy"]; !ok {
		return o, false
	}
	c := maps.Clone(o)
	spec = maps.Clone(spec)
	delete(spec, "internalTrafficPolicy")
	c["spec"] = spec
	return c, true
}
