package validation

import (
	"encoding/json"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema/gotypes"
)

// A ResourceClaimSpec (a ResourceClaim's, a ResourceClaimTemplate's) as validateDeviceClaim and
// the declarative Validate_DeviceClaim: requests (exactly one of exactly and firstAvailable,
// device classes, selectors, allocation mode and count, tolerations), constraints and config,
// which name requests of the claim. Derived attributes are dropped by PrepareForCreate and
// PrepareForUpdate (DRADerivedAttributes is off in 1.37) unless the stored spec has them, which a
// 1.37 server never stores; they are not validated.

const (
	deviceRequestsMaxSize    = 32
	deviceConstraintsMaxSize = 32
	firstAvailableMaxSize    = 8
)

var (
	allocationModes           = []string{"All", "ExactCount"}
	deviceTolerationOperators = []string{"Equal", "Exists"}
)

// claimRequestNames is gatherRequestNames: each request's name and its subrequests' names.
type claimRequestNames map[string]map[string]bool

func gatherClaimRequestNames(reqs []any) claimRequestNames {
	out := claimRequestNames{}
	for _, raw := range reqs {
		r := mapOf(raw)
		subs := listOf(r["firstAvailable"])
		if len(subs) == 0 {
			out[str(r, "name")] = nil
			continue
		}
		set := map[string]bool{}
		for _, s := range subs {
			set[str(mapOf(s), "name")] = true
		}
		out[str(r, "name")] = set
	}
	return out
}

func (r claimRequestNames) has(s string) bool {
	seg := strings.Split(s, "/")
	if len(seg) > 2 {
		return false
	}
	subs, ok := r[seg[0]]
	if !ok {
		return false
	}
	return len(seg) == 1 || subs[seg[1]]
}

// deviceClaimSpec is validateDeviceClaim at p (…spec.devices).
func deviceClaimSpec(h *handwritten, p field.Path, dc map[string]any, stored bool, opts Options) {
	reqs := listOf(dc["requests"])
	names := gatherClaimRequestNames(reqs)
	rp := p.Child("requests")
	if len(reqs) > deviceRequestsMaxSize {
		h.add(field.ErrorList{field.TooMany(rp, len(reqs), deviceRequestsMaxSize)}, "maxItems", true)
	} else {
		seen := map[string]bool{}
		for i, raw := range reqs {
			deviceRequest(h, rp.Index(i), mapOf(raw), stored, opts)
		}
		for i, raw := range reqs {
			n := str(mapOf(raw), "name")
			if seen[n] {
				h.add(field.ErrorList{field.Duplicate(rp.Index(i), n)}, "", true)
			}
			seen[n] = true
		}
	}
	cons := listOf(dc["constraints"])
	cp := p.Child("constraints")
	if len(cons) > deviceConstraintsMaxSize {
		h.add(field.ErrorList{field.TooMany(cp, len(cons), deviceConstraintsMaxSize)}, "maxItems", true)
	} else {
		for i, raw := range cons {
			c := mapOf(raw)
			ip := cp.Index(i)
			requestRefs(h, ip.Child("requests"), listOf(c["requests"]), names)
			switch {
			case has(c, "matchAttribute") && c["matchAttribute"] != nil:
				h.add(resourceFullyQualifiedName(ip.Child("matchAttribute"), str(c, "matchAttribute")), "format=k8s-resource-fully-qualified-name", true)
			case has(c, "distinctAttribute") && c["distinctAttribute"] != nil:
				h.add(resourceFullyQualifiedName(ip.Child("distinctAttribute"), str(c, "distinctAttribute")), "format=k8s-resource-fully-qualified-name", true)
			default:
				h.add(field.ErrorList{field.Required(ip, `exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set`)}, "", false)
			}
		}
	}
	cfg := listOf(dc["config"])
	fp := p.Child("config")
	if len(cfg) > deviceConfigMaxSize {
		h.add(field.ErrorList{field.TooMany(fp, len(cfg), deviceConfigMaxSize)}, "maxItems", true)
	} else {
		for i, raw := range cfg {
			c := mapOf(raw)
			requestRefs(h, fp.Index(i).Child("requests"), listOf(c["requests"]), names)
			deviceConfiguration(h, fp.Index(i), c, stored)
		}
	}
}

// requestRefs is validateSet over request references: each a request or request/subrequest
// of the claim, no duplicates (covered), at most 32 (covered).
func requestRefs(h *handwritten, p field.Path, refs []any, names claimRequestNames) {
	if len(refs) > deviceRequestsMaxSize {
		h.add(field.ErrorList{field.TooMany(p, len(refs), deviceRequestsMaxSize)}, "maxItems", true)
		return
	}
	for i, raw := range refs {
		s, _ := raw.(string)
		ip := p.Index(i)
		seg := strings.Split(s, "/")
		if len(seg) > 2 {
			h.add(field.ErrorList{field.Invalid(ip, s, "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'")}, "", false)
			continue
		}
		for _, sg := range seg {
			h.add(invalids(ip, sg, validation.IsDNS1123Label(sg)), "format=k8s-short-name", false)
		}
		if !names.has(s) {
			h.add(field.ErrorList{field.Invalid(ip, s, "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'")}, "", false)
		}
	}
	seen := map[string]bool{}
	for i, raw := range refs {
		s, _ := raw.(string)
		if seen[s] {
			h.add(field.ErrorList{field.Duplicate(p.Index(i), s)}, "", true)
		}
		seen[s] = true
	}
}

// deviceRequest is validateDeviceRequest.
func deviceRequest(h *handwritten, p field.Path, r map[string]any, stored bool, opts Options) {
	name := str(r, "name")
	h.add(invalids(p.Child("name"), name, validation.IsDNS1123Label(name)), "format=k8s-short-name", false)
	subs := listOf(r["firstAvailable"])
	ex, hasExactly := r["exactly"].(map[string]any)
	switch {
	case len(subs) == 0 && !hasExactly:
		h.add(field.ErrorList{field.Required(p, "exactly one of `exactly` or `firstAvailable` is required")}, "", false)
	case len(subs) > 0 && hasExactly:
		h.add(field.ErrorList{field.Invalid(p, nil, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set")}, "", false)
	case len(subs) > 0:
		fp := p.Child("firstAvailable")
		if len(subs) > firstAvailableMaxSize {
			h.add(field.ErrorList{field.TooMany(fp, len(subs), firstAvailableMaxSize)}, "maxItems", true)
			return
		}
		for i, raw := range subs {
			s := mapOf(raw)
			ip := fp.Index(i)
			sn := str(s, "name")
			h.add(invalids(ip.Child("name"), sn, validation.IsDNS1123Label(sn)), "format=k8s-short-name", false)
			deviceClassName(h, ip.Child("deviceClassName"), str(s, "deviceClassName"), true)
			requestBody(h, ip, s, stored, opts)
		}
		seen := map[string]bool{}
		for i, raw := range subs {
			sn := str(mapOf(raw), "name")
			if seen[sn] {
				h.add(field.ErrorList{field.Duplicate(fp.Index(i), sn)}, "", true)
			}
			seen[sn] = true
		}
	default:
		ep := p.Child("exactly")
		deviceClassName(h, ep.Child("deviceClassName"), str(ex, "deviceClassName"), false)
		requestBody(h, ep, ex, stored, opts)
	}
}

// deviceClassName is validateDeviceClass (covered for a subrequest).
func deviceClassName(h *handwritten, p field.Path, n string, covered bool) {
	if n == "" {
		h.add(field.ErrorList{field.Required(p, "")}, "", covered)
		return
	}
	h.add(invalids(p, n, validation.IsDNS1123Subdomain(n)), "format=k8s-long-name", covered)
}

// requestBody is what an exact request and a subrequest share: selectors, allocation mode and
// count, tolerations.
func requestBody(h *handwritten, p field.Path, r map[string]any, stored bool, opts Options) {
	sels := listOf(r["selectors"])
	if len(sels) > deviceSelectorsMaxSize {
		h.add(field.ErrorList{field.TooMany(p.Child("selectors"), len(sels), deviceSelectorsMaxSize)}, "maxItems", true)
	} else {
		h.add(deviceSelectors(p.Child("selectors"), sels, stored, opts), "", false)
	}
	count, _ := integer(r, "count")
	switch mode := str(r, "allocationMode"); mode {
	case "All":
		if count != 0 {
			h.add(field.ErrorList{field.Invalid(p.Child("count"), count, "must not be specified when allocationMode is 'All'")}, "", false)
		}
	case "ExactCount":
		if count <= 0 {
			h.add(field.ErrorList{field.Invalid(p.Child("count"), count, "must be greater than zero")}, "", false)
		}
	default:
		h.add(field.ErrorList{field.NotSupported(p.Child("allocationMode"), mode, allocationModes)}, "", true)
	}
	for i, raw := range listOf(r["tolerations"]) {
		deviceToleration(h, p.Child("tolerations").Index(i), mapOf(raw))
	}
}

// deviceToleration is validateDeviceToleration.
func deviceToleration(h *handwritten, p field.Path, t map[string]any) {
	if k := str(t, "key"); k != "" {
		h.add(invalids(p.Child("key"), k, validation.IsQualifiedName(k)), "format=k8s-label-key", true)
	}
	v := str(t, "value")
	switch op := str(t, "operator"); op {
	case "Exists":
		if v != "" {
			h.add(field.ErrorList{field.Invalid(p.Child("value"), v, "must be empty for operator `Exists`")}, "", false)
		}
	case "Equal":
		h.add(invalids(p.Child("value"), v, validation.IsValidLabelValue(v)), "", false)
	case "":
		h.add(field.ErrorList{field.Required(p.Child("operator"), "")}, "", true)
	default:
		h.add(field.ErrorList{field.NotSupported(p.Child("operator"), op, deviceTolerationOperators)}, "", true)
	}
	if e := str(t, "effect"); e != "" && !contains(deviceTaintEffects, e) {
		h.add(field.ErrorList{field.NotSupported(p.Child("effect"), e, deviceTaintEffects)}, "", true)
	}
}

// resourceFullyQualifiedName is validateFullyQualifiedName: a qualified name
// (resourceQualifiedName) with a domain.
func resourceFullyQualifiedName(p field.Path, n string) field.ErrorList {
	errs := resourceQualifiedName(p, n)
	if !strings.Contains(n, "/") {
		errs = append(errs, field.Invalid(p, n, "a fully qualified name must be a domain and a name separated by a slash"))
	}
	return errs
}

// cIdentifier is validateCIdentifier: at most 32 bytes, a C identifier.
func cIdentifier(p field.Path, id string) field.ErrorList {
	var errs field.ErrorList
	if len(id) > 32 {
		errs = append(errs, field.TooLong(p, "", 32))
	}
	if !isCIdentifier(id) {
		errs = append(errs, field.Invalid(p, id, cIdentifierMessage))
	}
	return errs
}

func isCIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !alpha && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// The declarative side (Validate_DeviceClaim and below, all beta and enforced in 1.37). old is
// the stored value at the same place on an update (nil on create, or when a list item has no
// counterpart of its name): a field equal to its old value is not validated again.

// ratcheted reports whether v is unchanged from old on an update (oldSet: the parent exists in
// the old object), so its declarative rules are skipped.
func ratcheted(oldSet bool, v, old any) bool { return oldSet && semanticEqual(v, old) }

// v1JSON is how a declarative Duplicate prints a list item: encoding/json of the v1 struct
// (fields in declaration order, omitempty honoured by the typed round trip).
func v1JSON(t gotypes.Type, v any) any {
	b, err := gotypes.ValueJSON(t, v)
	if err != nil {
		return v
	}
	return json.RawMessage(b)
}

// deviceClaimDeclarative is Validate_DeviceClaim at p; old is nil on create.
func deviceClaimDeclarative(d *declarative, p field.Path, dc, old map[string]any, oldSet bool, t gotypes.Type) {
	if ratcheted(oldSet, dc, old) {
		return
	}
	reqs, oldReqs := listOf(dc["requests"]), listOf(old["requests"])
	rp := p.Child("requests")
	if !ratcheted(oldSet, dc["requests"], old["requests"]) {
		if e := maxItemsDeclarative(rp, reqs, deviceRequestsMaxSize); e != nil {
			d.add(e, "maxItems")
		} else {
			rt := t.Field("requests").Elem()
			d.add(uniqueByName(rp, reqs, rt), "")
			for i, raw := range reqs {
				r := mapOf(raw)
				o, found := byName(oldReqs, str(r, "name"), oldSet)
				if found && semanticEqual(r, o) {
					continue
				}
				deviceRequestDeclarative(d, rp.Index(i), r, o, found, rt)
			}
		}
	}
	cp := p.Child("constraints")
	if !ratcheted(oldSet, dc["constraints"], old["constraints"]) {
		cons := listOf(dc["constraints"])
		if e := maxItemsDeclarative(cp, cons, deviceConstraintsMaxSize); e != nil {
			d.add(e, "maxItems")
		} else {
			for i, raw := range cons {
				c := mapOf(raw)
				ip := cp.Index(i)
				requestRefsDeclarative(d, ip.Child("requests"), listOf(c["requests"]))
				for _, f := range []string{"matchAttribute", "distinctAttribute"} {
					if v, ok := c[f].(string); ok {
						d.add(fullyQualifiedNameDeclarative(ip.Child(f), v), "format=k8s-resource-fully-qualified-name")
					}
				}
			}
		}
	}
	fp := p.Child("config")
	if !ratcheted(oldSet, dc["config"], old["config"]) {
		cfg := listOf(dc["config"])
		if e := maxItemsDeclarative(fp, cfg, deviceConfigMaxSize); e != nil {
			d.add(e, "maxItems")
		} else {
			for i, raw := range cfg {
				c := mapOf(raw)
				requestRefsDeclarative(d, fp.Index(i).Child("requests"), listOf(c["requests"]))
				deviceConfigurationDeclarative(d, fp.Index(i), c)
			}
		}
	}
}

// byName finds the item of l named name (the list-map match of EachValSliceVal).
func byName(l []any, name string, oldSet bool) (map[string]any, bool) {
	if !oldSet {
		return nil, false
	}
	for _, x := range l {
		if m := mapOf(x); str(m, "name") == name {
			return m, true
		}
	}
	return nil, false
}

// uniqueByName is ValSliceUnique over a list keyed by name: every later item of a name already
// listed is a Duplicate, with the item as its value.
func uniqueByName(p field.Path, l []any, t gotypes.Type) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]bool, len(l))
	for i, x := range l {
		n := str(mapOf(x), "name")
		if seen[n] {
			errs = append(errs, field.Duplicate(p.Index(i), v1JSON(t, x)))
		}
		seen[n] = true
	}
	return errs
}

// requestRefsDeclarative is a request reference list's declarative rules: at most 32, unique.
func requestRefsDeclarative(d *declarative, p field.Path, refs []any) {
	if e := maxItemsDeclarative(p, refs, deviceRequestsMaxSize); e != nil {
		d.add(e, "maxItems")
		return
	}
	seen := make(map[string]bool, len(refs))
	var errs field.ErrorList
	for i, raw := range refs {
		s, _ := raw.(string)
		if seen[s] {
			errs = append(errs, field.Duplicate(p.Index(i), s))
		}
		seen[s] = true
	}
	d.add(errs, "")
}

// deviceRequestDeclarative is Validate_DeviceRequest: exactly, then firstAvailable (at most 8,
// unique by name, each subrequest).
func deviceRequestDeclarative(d *declarative, p field.Path, r, old map[string]any, oldSet bool, t gotypes.Type) {
	if ex, ok := r["exactly"].(map[string]any); ok && !ratcheted(oldSet, r["exactly"], old["exactly"]) {
		oex, oexSet := old["exactly"].(map[string]any)
		requestBodyDeclarative(d, p.Child("exactly"), ex, oex, oldSet && oexSet)
	}
	subs := listOf(r["firstAvailable"])
	if len(subs) == 0 || ratcheted(oldSet, r["firstAvailable"], old["firstAvailable"]) {
		return
	}
	fp := p.Child("firstAvailable")
	if e := maxItemsDeclarative(fp, subs, firstAvailableMaxSize); e != nil {
		d.add(e, "maxItems")
		return
	}
	st := t.Field("firstAvailable").Elem()
	d.add(uniqueByName(fp, subs, st), "")
	oldSubs := listOf(old["firstAvailable"])
	for i, raw := range subs {
		s := mapOf(raw)
		o, found := byName(oldSubs, str(s, "name"), oldSet)
		if found && semanticEqual(s, o) {
			continue
		}
		ip := fp.Index(i)
		if !(found && str(s, "deviceClassName") == str(o, "deviceClassName")) {
			if n := str(s, "deviceClassName"); n == "" {
				d.add(field.ErrorList{field.Required(ip.Child("deviceClassName"), "")}, "")
			} else {
				d.add(longNameDeclarative(ip.Child("deviceClassName"), n), "format=k8s-long-name")
			}
		}
		requestBodyDeclarative(d, ip, s, o, found)
	}
}

// requestBodyDeclarative is what Validate_ExactDeviceRequest and Validate_DeviceSubRequest
// share after the class name: at most 32 selectors, the allocation mode's enum, each
// toleration.
func requestBodyDeclarative(d *declarative, p field.Path, r, old map[string]any, oldSet bool) {
	if !ratcheted(oldSet, r["selectors"], old["selectors"]) {
		d.add(maxItemsDeclarative(p.Child("selectors"), listOf(r["selectors"]), deviceSelectorsMaxSize), "maxItems")
	}
	if m := str(r, "allocationMode"); m != "" && !(oldSet && m == str(old, "allocationMode")) && !contains(allocationModes, m) {
		d.add(field.ErrorList{field.NotSupported(p.Child("allocationMode"), m, allocationModes)}, "")
	}
	if !ratcheted(oldSet, r["tolerations"], old["tolerations"]) {
		for i, raw := range listOf(r["tolerations"]) {
			deviceTolerationDeclarative(d, p.Child("tolerations").Index(i), mapOf(raw))
		}
	}
}

// deviceTolerationDeclarative is Validate_DeviceToleration (the list has no keys: no item is
// ratcheted): the key a label key, the operator required and Equal or Exists, the effect one of
// the taint effects.
func deviceTolerationDeclarative(d *declarative, p field.Path, t map[string]any) {
	if k := str(t, "key"); k != "" {
		d.add(invalids(p.Child("key"), k, validation.IsQualifiedName(k)), "format=k8s-label-key")
	}
	switch op := str(t, "operator"); {
	case op == "":
		d.add(field.ErrorList{field.Required(p.Child("operator"), "")}, "")
	case !contains(deviceTolerationOperators, op):
		d.add(field.ErrorList{field.NotSupported(p.Child("operator"), op, deviceTolerationOperators)}, "")
	}
	if e := str(t, "effect"); e != "" && !contains(deviceTaintEffects, e) {
		d.add(field.ErrorList{field.NotSupported(p.Child("effect"), e, deviceTaintEffects)}, "")
	}
}

// fullyQualifiedNameDeclarative is validate.ResourceFullyQualifiedName: a C identifier of at
// most 32 bytes after an optional DNS subdomain prefix, the prefix required.
func fullyQualifiedNameDeclarative(p field.Path, s string) field.ErrorList {
	var errs field.ErrorList
	parts := strings.Split(s, "/")
	switch len(parts) {
	case 1:
		errs = append(errs, cIdentifierDeclarative(p, parts[0])...)
	case 2:
		if parts[0] == "" {
			errs = append(errs, field.Invalid(p, "", "prefix must not be empty"))
		} else {
			if len(parts[0]) > 63 {
				errs = append(errs, field.TooLong(p, "", 63))
			}
			for _, m := range validation.DNS1123Subdomain(parts[0], validation.ContentMaxLenError) {
				errs = append(errs, field.Invalid(p, parts[0], "prefix: "+m))
			}
		}
		if parts[1] == "" {
			errs = append(errs, field.Invalid(p, "", "name must not be empty"))
		} else {
			errs = append(errs, cIdentifierDeclarative(p, parts[1])...)
		}
	}
	if !strings.Contains(s, "/") {
		errs = append(errs, field.Invalid(p, s, "a fully qualified name must be a domain and a name separated by a slash"))
	}
	return errs
}

func cIdentifierDeclarative(p field.Path, id string) field.ErrorList {
	var errs field.ErrorList
	if len(id) > 32 {
		errs = append(errs, field.TooLong(p, "", 32))
	}
	if !isCIdentifier(id) {
		errs = append(errs, field.Invalid(p, id, cIdentifierMessage))
	}
	return errs
}

var cIdentifierMessage = validation.RegexError("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
	"[A-Za-z_][A-Za-z0-9_]*", "my_name", "MY_NAME", "MyName")
