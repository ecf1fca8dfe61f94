package validation

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// A ResourceClaim's /status as resourceclaimStatusStrategy: AuthorizedForAdminStatus (a new
// allocation granting admin access needs the namespace's label, read through
// Options.Namespace), ValidateResourceClaimStatusUpdate (reservedFor, device status, the
// allocation — validated when new, immutable once set) merged with the enforced declarative
// Validate_ResourceClaimStatus. The strategy's AuthorizedForBinding and AuthorizedForDeviceStatus
// (DRAResourceClaimGranularStatusAuthorization) ask the authorizer for the synthetic
// resourceclaims/binding and resourceclaims/driver subresources: authorization is not modelled,
// the caller is allowed. PrepareForUpdate drops the results' skipNodeOperations
// (DRAOptionalNodeOperations is off) unless stored, and the device status entries of devices
// the new allocation no longer holds.

const (
	reservedForMaxSize             = 256
	allocationResultsMaxSize       = 32
	allocatedDeviceMaxConditions   = 8
	deviceStatusDataMaxLength      = 10 * 1024
	networkInterfaceNameMaxLength  = 256
	networkHardwareAddrMaxLength   = 128
	networkMaxIPs                  = 16
	allocationConfigSourceClaim    = "FromClaim"
	allocationConfigSourceClass    = "FromClass"
	uuidNormalizedFormMessage      = "uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters"
	uuidDeclarativeMessage         = "must be a lowercase UUID in 8-4-4-4-12 format"
	requestNameRefMessage          = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
	deviceStatusNotAllocatedDetail = "must be an allocated device in the claim"
)

var (
	claimStatusType      = goTypeAt("resource.k8s.io", "ResourceClaim", "status")
	allocationType       = claimStatusType.Field("allocation")
	reservedForItemType  = claimStatusType.Field("reservedFor").Elem()
	deviceStatusItemType = claimStatusType.Field("devices").Elem()
	allocationConfigs    = []string{allocationConfigSourceClaim, allocationConfigSourceClass}
)

// validateResourceClaimStatusUpdate is the /status strategy's ValidateUpdate and the
// declarative rules of the status.
func validateResourceClaimStatusUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	st, oldSt := mapOf(obj["status"]), mapOf(old["status"])
	var h handwritten
	h.add(authorizedForAdminStatus(obj, st, oldSt, opts), "", false)
	h.add(coreObjectMetaUpdate(obj, old), "", false)
	names := gatherClaimRequestNames(listOf(claimDevices(obj)["requests"]))
	claimStatus(&h, st, oldSt, mapOf(obj["metadata"])["deletionTimestamp"] != nil, names)
	var d declarative
	if !goSemanticEqual(claimStatusType, obj["status"], old["status"]) {
		claimStatusDeclarative(&d, st, oldSt)
	}
	return merge(h, d)
}

// authorizedForAdminStatus is AuthorizedForAdminStatus: unless the stored allocation granted
// admin access, the first new result granting it needs the namespace's label.
func authorizedForAdminStatus(obj, st, oldSt map[string]any, opts Options) field.ErrorList {
	admin := func(s map[string]any) int {
		for i, r := range listOf(mapOf(mapOf(s["allocation"])["devices"])["results"]) {
			if b, _ := mapOf(r)["adminAccess"].(bool); b {
				return i
			}
		}
		return -1
	}
	if admin(oldSt) >= 0 {
		return nil
	}
	i := admin(st)
	if i < 0 {
		return nil
	}
	return adminAccessNamespace(obj, field.NewPath("status", "allocation", "devices", "results").Index(i).Child("adminAccess"), opts)
}

// deviceKey is a device status entry's or an allocation result's SharedDeviceID.
func deviceKey(m map[string]any) [4]string {
	return [4]string{str(m, "driver"), str(m, "pool"), str(m, "device"), str(m, "shareID")}
}

// sharedDeviceID is how the reference prints a SharedDeviceID as a bad value.
func sharedDeviceID(k [4]string) json.RawMessage {
	b, _ := json.Marshal(struct{ Driver, Pool, Device, ShareID string }{k[0], k[1], k[2], k[3]})
	return b
}

// claimStatus is validateResourceClaimStatusUpdate.
func claimStatus(h *handwritten, st, oldSt map[string]any, deleted bool, names claimRequestNames) {
	p := field.NewPath("status")
	rf := listOf(st["reservedFor"])
	rp := p.Child("reservedFor")
	if len(rf) > reservedForMaxSize {
		h.add(field.ErrorList{field.TooMany(rp, len(rf), reservedForMaxSize)}, "maxItems", true)
	} else {
		for i, raw := range rf {
			ref := mapOf(raw)
			for _, f := range []string{"resource", "name", "uid"} {
				if str(ref, f) == "" {
					h.add(field.ErrorList{field.Required(rp.Index(i).Child(f), "")}, "", false)
				}
			}
		}
		seen := make(map[string]bool, len(rf))
		for i, raw := range rf {
			u := str(mapOf(raw), "uid")
			if seen[u] {
				h.add(field.ErrorList{field.Duplicate(rp.Index(i), u)}, "", true)
			}
			seen[u] = true
		}
	}

	alloc, hasAlloc := st["allocation"].(map[string]any)
	allocated := map[[4]string]bool{}
	for _, r := range listOf(mapOf(alloc["devices"])["results"]) {
		allocated[deviceKey(mapOf(r))] = true
	}
	devices := listOf(st["devices"])
	dp := p.Child("devices")
	for i, raw := range devices {
		deviceStatus(h, dp.Index(i), mapOf(raw), allocated)
	}
	seen := make(map[[4]string]bool, len(devices))
	for i, raw := range devices {
		k := deviceKey(mapOf(raw))
		if seen[k] {
			h.add(field.ErrorList{field.Duplicate(dp.Index(i), sharedDeviceID(k))}, "", true)
		}
		seen[k] = true
	}

	if len(rf) > 0 {
		switch {
		case !hasAlloc:
			h.add(field.ErrorList{field.Forbidden(rp, "may not be specified when `allocated` is not set")}, "", false)
		case deleted:
			stored := map[[4]string]bool{}
			for _, raw := range listOf(oldSt["reservedFor"]) {
				stored[consumerKey(mapOf(raw))] = true
			}
			for _, raw := range rf {
				if !stored[consumerKey(mapOf(raw))] {
					h.add(field.ErrorList{field.Forbidden(rp, "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set")}, "", false)
					break
				}
			}
		}
	}

	ap := p.Child("allocation")
	oldAlloc, hadAlloc := oldSt["allocation"].(map[string]any)
	switch {
	case hadAlloc && hasAlloc:
		if !goSemanticEqual(allocationType, alloc, oldAlloc) {
			h.add(field.ErrorList{field.Invalid(ap, internalGo(allocationType, alloc), "field is immutable")}, "update", true)
		}
	case hasAlloc:
		allocationResult(h, ap, alloc, names)
	}
}

func consumerKey(m map[string]any) [4]string {
	return [4]string{str(m, "apiGroup"), str(m, "resource"), str(m, "name"), str(m, "uid")}
}

// deviceStatus is validateDeviceStatus.
func deviceStatus(h *handwritten, p field.Path, d map[string]any, allocated map[[4]string]bool) {
	h.add(csiDriverName(p.Child("driver"), str(d, "driver")), "", false)
	h.add(resourcePoolName(p.Child("pool"), str(d, "pool")), "format=k8s-resource-pool-name", false)
	dev := str(d, "device")
	h.add(invalids(p.Child("device"), dev, validation.IsDNS1123Label(dev)), "format=k8s-short-name", false)
	if s, ok := d["shareID"].(string); ok {
		h.add(uidErrors(p.Child("shareID"), s), "format=k8s-uuid", true)
	}
	if k := deviceKey(d); !allocated[k] {
		h.add(field.ErrorList{field.Invalid(p, sharedDeviceID(k), deviceStatusNotAllocatedDetail)}, "", false)
	}
	conds := listOf(d["conditions"])
	if len(conds) > allocatedDeviceMaxConditions {
		h.add(field.ErrorList{field.TooMany(p.Child("conditions"), len(conds), allocatedDeviceMaxConditions)}, "", false)
	}
	h.add(MetaConditions(p.Child("conditions"), conds), "", false)
	if data, ok := d["data"]; ok && data != nil {
		h.add(rawExtensionObject(p.Child("data"), data, true, false, deviceStatusDataMaxLength), "", false)
	}
	nd, ok := d["networkData"].(map[string]any)
	if !ok {
		return
	}
	np := p.Child("networkData")
	if len(str(nd, "interfaceName")) > networkInterfaceNameMaxLength {
		h.add(field.ErrorList{field.TooLong(np.Child("interfaceName"), "", networkInterfaceNameMaxLength)}, "maxBytes", true)
	}
	if len(str(nd, "hardwareAddress")) > networkHardwareAddrMaxLength {
		h.add(field.ErrorList{field.TooLong(np.Child("hardwareAddress"), "", networkHardwareAddrMaxLength)}, "maxBytes", true)
	}
	ips := stringList(nd["ips"])
	ip := np.Child("ips")
	if len(ips) > networkMaxIPs {
		h.add(field.ErrorList{field.TooMany(ip, len(ips), networkMaxIPs)}, "maxItems", true)
		return
	}
	for i, a := range ips {
		h.add(interfaceAddress(ip.Index(i), a), "", false)
	}
	seenIP := make(map[string]bool, len(ips))
	for i, a := range ips {
		if seenIP[a] {
			h.add(field.ErrorList{field.Duplicate(ip.Index(i), a)}, "", true)
		}
		seenIP[a] = true
	}
}

// interfaceAddress is IsValidInterfaceAddress: an address in CIDR form, written canonically
// (the address itself, not the network, before the prefix length).
func interfaceAddress(p field.Path, v string) field.ErrorList {
	addr, _, _ := strings.Cut(v, "/")
	n := parseCIDRSloppy(v)
	ip := parseIPSloppy(addr)
	if n == nil || ip == nil {
		return field.ErrorList{field.Invalid(p, v, "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)")}
	}
	size, _ := n.Mask.Size()
	if ip.To4() != nil && size > 32 {
		size -= 96
	}
	if c := fmt.Sprintf("%s/%d", ip.String(), size); c != v {
		return field.ErrorList{field.Invalid(p, v, fmt.Sprintf("must be in canonical form (%q)", c))}
	}
	return nil
}

// uidErrors is validateUID: github.com/google/uuid's Validate, then the normalized form.
func uidErrors(p field.Path, u string) field.ErrorList {
	if msg := googleUUIDError(u); msg != "" {
		return field.ErrorList{field.Invalid(p, u, "error validating uid: "+msg)}
	}
	if len(u) != 36 || u != strings.ToLower(u) {
		return field.ErrorList{field.Invalid(p, u, uuidNormalizedFormMessage)}
	}
	return nil
}

// googleUUIDError is uuid.Validate's error text ("" when s parses).
func googleUUIDError(s string) string {
	switch len(s) {
	case 36:
	case 36 + 9:
		if !strings.EqualFold(s[:9], "urn:uuid:") {
			return fmt.Sprintf("invalid urn prefix: %q", s[:9])
		}
		s = s[9:]
	case 36 + 2:
		if s[0] != '{' || s[len(s)-1] != '}' {
			return "invalid bracketed UUID format"
		}
		s = s[1 : len(s)-1]
	case 32:
		for i := 0; i < len(s); i++ {
			if !isHex(s[i]) {
				return "invalid UUID format"
			}
		}
		return ""
	default:
		return fmt.Sprintf("invalid UUID length: %d", len(s))
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return "invalid UUID format"
			}
		default:
			if !isHex(s[i]) {
				return "invalid UUID format"
			}
		}
	}
	return ""
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// allocationResult is validateAllocationResult for a new allocation.
func allocationResult(h *handwritten, p field.Path, a map[string]any, names claimRequestNames) {
	devs := mapOf(a["devices"])
	dp := p.Child("devices")
	results := listOf(devs["results"])
	rp := dp.Child("results")
	if len(results) > allocationResultsMaxSize {
		h.add(field.ErrorList{field.TooMany(rp, len(results), allocationResultsMaxSize)}, "maxItems", true)
	} else {
		for i, raw := range results {
			allocationResultItem(h, rp.Index(i), mapOf(raw), names)
		}
	}
	cfg := listOf(devs["config"])
	cp := dp.Child("config")
	if len(cfg) > 2*deviceConfigMaxSize {
		h.add(field.ErrorList{field.TooMany(cp, len(cfg), 2*deviceConfigMaxSize)}, "maxItems", true)
	} else {
		for i, raw := range cfg {
			c := mapOf(raw)
			ip := cp.Index(i)
			switch src := str(c, "source"); {
			case src == "":
				h.add(field.ErrorList{field.Required(ip.Child("source"), "")}, "", true)
			case !contains(allocationConfigs, src):
				h.add(field.ErrorList{field.NotSupported(ip.Child("source"), src, allocationConfigs)}, "", true)
			}
			requestRefs(h, ip.Child("requests"), listOf(c["requests"]), names)
			deviceConfiguration(h, ip, c, false)
		}
	}
	if ns, ok := a["nodeSelector"].(map[string]any); ok {
		h.add(NodeSelector(p.Child("nodeSelector"), ns, false), "", false)
	}
}

// allocationResultItem is validateDeviceRequestAllocationResult.
func allocationResultItem(h *handwritten, p field.Path, r map[string]any, names claimRequestNames) {
	req := str(r, "request")
	rp := p.Child("request")
	if seg := strings.Split(req, "/"); len(seg) > 2 {
		h.add(field.ErrorList{field.Invalid(rp, req, requestNameRefMessage)}, "", false)
	} else {
		for _, s := range seg {
			h.add(invalids(rp, s, validation.IsDNS1123Label(s)), "format=k8s-short-name", false)
		}
		if !names.has(req) {
			h.add(field.ErrorList{field.Invalid(rp, req, requestNameRefMessage)}, "", false)
		}
	}
	driverNameHandwritten(h, p.Child("driver"), str(r, "driver"))
	pool := str(r, "pool")
	if pool == "" {
		h.add(field.ErrorList{field.Required(p.Child("pool"), "")}, "", true)
	} else {
		h.add(resourcePoolName(p.Child("pool"), pool), "format=k8s-resource-pool-name", true)
	}
	dev := str(r, "device")
	h.add(invalids(p.Child("device"), dev, validation.IsDNS1123Label(dev)), "format=k8s-short-name", false)
	bindingParameters(h, p, r)
	for i, raw := range listOf(r["tolerations"]) {
		deviceToleration(h, p.Child("tolerations").Index(i), mapOf(raw))
	}
	if s, ok := r["shareID"].(string); ok {
		h.add(uidErrors(p.Child("shareID"), s), "format=k8s-uuid", true)
	}
}

// claimStatusDeclarative is Validate_ResourceClaimStatus on an update whose status changed.
func claimStatusDeclarative(d *declarative, st, oldSt map[string]any) {
	p := field.NewPath("status")
	alloc, hasAlloc := st["allocation"].(map[string]any)
	oldAlloc, hadAlloc := oldSt["allocation"].(map[string]any)
	if hasAlloc && !goSemanticEqual(allocationType, alloc, oldAlloc) {
		if hadAlloc {
			d.add(field.ErrorList{field.Invalid(p.Child("allocation"), nil, "field cannot be modified once set")}, "update")
		} else {
			allocationDeclarative(d, p.Child("allocation"), alloc)
		}
	}
	rf := listOf(st["reservedFor"])
	if !goSemanticEqual(claimStatusType.Field("reservedFor"), st["reservedFor"], oldSt["reservedFor"]) && len(rf) > 0 {
		rp := p.Child("reservedFor")
		if e := maxItemsDeclarative(rp, rf, reservedForMaxSize); e != nil {
			d.add(e, "maxItems")
		} else {
			d.add(uniqueBy(rp, rf, "uid", reservedForItemType), "")
		}
	}
	devices := listOf(st["devices"])
	if goSemanticEqual(claimStatusType.Field("devices"), st["devices"], oldSt["devices"]) || len(devices) == 0 {
		return
	}
	dp := p.Child("devices")
	seen := make(map[[4]string]bool, len(devices))
	var dups field.ErrorList
	for i, raw := range devices {
		k := deviceStatusMatchKey(mapOf(raw))
		if seen[k] {
			dups = append(dups, field.Duplicate(dp.Index(i), v1JSON(deviceStatusItemType, raw)))
		}
		seen[k] = true
	}
	d.add(dups, "")
	stored := map[[4]string]map[string]any{}
	for _, raw := range listOf(oldSt["devices"]) {
		m := mapOf(raw)
		if _, dup := stored[deviceStatusMatchKey(m)]; !dup {
			stored[deviceStatusMatchKey(m)] = m
		}
	}
	for i, raw := range devices {
		m := mapOf(raw)
		o, found := stored[deviceStatusMatchKey(m)]
		if found && goSemanticEqual(deviceStatusItemType, m, o) {
			continue
		}
		deviceStatusDeclarative(d, dp.Index(i), m, o, found)
	}
}

// deviceStatusMatchKey is the declarative list-map key of a device status: driver, device,
// pool and the share ID, an unset one apart from "".
func deviceStatusMatchKey(m map[string]any) [4]string {
	s, ok := m["shareID"].(string)
	if !ok {
		s = "\x00unset"
	}
	return [4]string{str(m, "driver"), str(m, "device"), str(m, "pool"), s}
}

// deviceStatusDeclarative is Validate_AllocatedDeviceStatus; old is the matched stored entry.
func deviceStatusDeclarative(d *declarative, p field.Path, m, old map[string]any, oldSet bool) {
	if s, ok := m["shareID"].(string); ok && !(oldSet && old["shareID"] == s) {
		d.add(uuidDeclarative(p.Child("shareID"), s), "format=k8s-uuid")
	}
	nd, ok := m["networkData"].(map[string]any)
	if !ok {
		return
	}
	ond, oldND := old["networkData"].(map[string]any)
	oldND = oldND && oldSet
	np := p.Child("networkData")
	if oldND && goSemanticEqual(deviceStatusItemType.Field("networkData"), nd, ond) {
		return
	}
	if s := str(nd, "interfaceName"); s != "" && !(oldND && s == str(ond, "interfaceName")) && len(s) > networkInterfaceNameMaxLength {
		d.add(field.ErrorList{field.TooLong(np.Child("interfaceName"), s, networkInterfaceNameMaxLength)}, "maxBytes")
	}
	if ips := listOf(nd["ips"]); len(ips) > 0 && !(oldND && semanticEqual(nd["ips"], ond["ips"])) {
		ip := np.Child("ips")
		if e := maxItemsDeclarative(ip, ips, networkMaxIPs); e != nil {
			d.add(e, "maxItems")
		} else {
			seen := make(map[string]bool, len(ips))
			var dups field.ErrorList
			for i, raw := range ips {
				s, _ := raw.(string)
				if seen[s] {
					dups = append(dups, field.Duplicate(ip.Index(i), s))
				}
				seen[s] = true
			}
			d.add(dups, "")
		}
	}
	if s := str(nd, "hardwareAddress"); s != "" && !(oldND && s == str(ond, "hardwareAddress")) && len(s) > networkHardwareAddrMaxLength {
		d.add(field.ErrorList{field.TooLong(np.Child("hardwareAddress"), s, networkHardwareAddrMaxLength)}, "maxBytes")
	}
}

// uuidDeclarative is validate.UUID: 36 characters, lowercase hexadecimal in 8-4-4-4-12 form.
func uuidDeclarative(p field.Path, s string) field.ErrorList {
	bad := field.ErrorList{field.Invalid(p, s, uuidDeclarativeMessage)}
	if len(s) != 36 {
		return bad
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return bad
			}
		default:
			if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return bad
			}
		}
	}
	return nil
}

// allocationDeclarative is Validate_AllocationResult for a new allocation.
func allocationDeclarative(d *declarative, p field.Path, a map[string]any) {
	devs := mapOf(a["devices"])
	dp := p.Child("devices")
	results := listOf(devs["results"])
	rp := dp.Child("results")
	if e := maxItemsDeclarative(rp, results, allocationResultsMaxSize); e != nil {
		d.add(e, "maxItems")
	} else {
		for i, raw := range results {
			r := mapOf(raw)
			ip := rp.Index(i)
			drv := str(r, "driver")
			if drv == "" {
				d.add(field.ErrorList{field.Required(ip.Child("driver"), "")}, "")
			} else {
				d.add(invalids(ip.Child("driver"), drv, validation.IsDNS1123SubdomainCaseless(drv)), "format=k8s-long-name-caseless")
				d.add(maxLengthDeclarative(ip.Child("driver"), drv, driverNameMaxLength), "maxLength")
			}
			if pool := str(r, "pool"); pool == "" {
				d.add(field.ErrorList{field.Required(ip.Child("pool"), "")}, "")
			} else {
				d.add(resourcePoolNameDeclarative(ip.Child("pool"), pool), "format=k8s-resource-pool-name")
			}
			for j, t := range listOf(r["tolerations"]) {
				deviceTolerationDeclarative(d, ip.Child("tolerations").Index(j), mapOf(t))
			}
			for _, f := range []string{"bindingConditions", "bindingFailureConditions"} {
				d.add(maxItemsDeclarative(ip.Child(f), listOf(r[f]), bindingConditionsMaxSize), "maxItems")
			}
			if s, ok := r["shareID"].(string); ok {
				d.add(uuidDeclarative(ip.Child("shareID"), s), "format=k8s-uuid")
			}
		}
	}
	cfg := listOf(devs["config"])
	cp := dp.Child("config")
	if e := maxItemsDeclarative(cp, cfg, 2*deviceConfigMaxSize); e != nil {
		d.add(e, "maxItems")
		return
	}
	for i, raw := range cfg {
		c := mapOf(raw)
		ip := cp.Index(i)
		switch src := str(c, "source"); {
		case src == "":
			d.add(field.ErrorList{field.Required(ip.Child("source"), "")}, "")
		case !contains(allocationConfigs, src):
			d.add(field.ErrorList{field.NotSupported(ip.Child("source"), src, allocationConfigs)}, "")
		}
		requestRefsDeclarative(d, ip.Child("requests"), listOf(c["requests"]))
		deviceConfigurationDeclarative(d, ip, c)
	}
}

// resourcePoolNameDeclarative is validate.ResourcePoolName: at most 253 characters, each
// "/"-separated segment a non-empty DNS subdomain (its errors prefixed with the segment).
func resourcePoolNameDeclarative(p field.Path, v string) field.ErrorList {
	var errs field.ErrorList
	if len(v) > 253 {
		errs = append(errs, field.TooLong(p, v, 253))
	}
	for i, part := range strings.Split(v, "/") {
		if part == "" {
			errs = append(errs, field.Invalid(p, v, fmt.Sprintf("segment %d: must not be empty", i)))
			continue
		}
		for _, m := range validation.DNS1123Subdomain(part, validation.ContentMaxLenError) {
			errs = append(errs, field.Invalid(p, part, fmt.Sprintf("segment %d: %s", i, m)))
		}
	}
	return errs
}

// prepareResourceClaimStatusUpdate is the /status strategy's PrepareForUpdate beyond the spec
// and metadata resets: the results' skipNodeOperations go unless stored, then
// dropDeallocatedStatusDevices: a device status entry of a device the stored allocation held
// and the new one does not is removed (status.devices unset when none is left).
func prepareResourceClaimStatusUpdate(obj, old map[string]any) map[string]any {
	st, oldSt := mapOf(obj["status"]), mapOf(old["status"])
	keepSkip := false
	for _, r := range listOf(mapOf(mapOf(oldSt["allocation"])["devices"])["results"]) {
		keepSkip = keepSkip || len(listOf(mapOf(r)["skipNodeOperations"])) > 0
	}
	results := listOf(mapOf(mapOf(st["allocation"])["devices"])["results"])
	dropSkip := false
	for _, r := range results {
		if _, ok := mapOf(r)["skipNodeOperations"]; ok && !keepSkip {
			dropSkip = true
		}
	}
	gone := map[[4]string]bool{}
	for _, r := range listOf(mapOf(mapOf(oldSt["allocation"])["devices"])["results"]) {
		gone[deviceKey(mapOf(r))] = true
	}
	for _, r := range results {
		delete(gone, deviceKey(mapOf(r)))
	}
	devices, hasDevices := st["devices"].([]any)
	dropDevices := false
	for _, raw := range devices {
		dropDevices = dropDevices || gone[deviceKey(mapOf(raw))]
	}
	emptyDevices := hasDevices && len(devices) == 0
	if !dropSkip && !dropDevices && !emptyDevices {
		return obj
	}
	out := copyMap(obj)
	ns := copyMap(st)
	out["status"] = ns
	if dropSkip {
		a := copyMap(mapOf(ns["allocation"]))
		ds := copyMap(mapOf(a["devices"]))
		nr := make([]any, len(results))
		for i, r := range results {
			if m, ok := r.(map[string]any); ok {
				m = copyMap(m)
				delete(m, "skipNodeOperations")
				r = m
			}
			nr[i] = r
		}
		ds["results"] = nr
		a["devices"] = ds
		ns["allocation"] = a
	}
	var kept []any
	for _, raw := range devices {
		if !gone[deviceKey(mapOf(raw))] {
			kept = append(kept, raw)
		}
	}
	if len(kept) == 0 {
		delete(ns, "devices")
	} else {
		ns["devices"] = kept
	}
	return out
}
