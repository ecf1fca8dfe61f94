package validation

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// certificates.k8s.io/v1: CertificateSigningRequest (create, update, /status, /approval) and
// ClusterTrustBundle (pkg/registry/certificates over pkg/apis/certificates/validation). A CSR's
// request is parsed and its signature checked, and its certificate parsed, with Go's
// crypto/x509, as the apiserver does; the rules an update tolerates because the stored object
// already breaks them follow the stored object. The Approved/Denied exclusion is 1.37's
// declarative zeroOrOneOf rule (beta, enforced): it replaces the hand-written error and comes
// after the others. PrepareForCreate writes the requesting user (Options.User) into spec and
// empties the status; PrepareForUpdate keeps the stored spec (and, on the main resource, the
// stored status; on /approval the stored status but the conditions), and on /status keeps the
// stored Approved and Denied conditions when there are as many; /status and /approval give a
// condition without times the request's time (Options.Now), or the stored transition time of
// a condition of the same type and status.

const legacyUnknownSigner = "kubernetes.io/legacy-unknown"

var csrUsages = []string{"any", "cert sign", "client auth", "code signing", "content commitment", "crl sign",
	"data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system",
	"ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing",
	"s/mime", "server auth", "signing", "timestamping"}

// csrOptions are certificateValidationOptions.
type csrOptions struct {
	allowApprovalConditions, allowCertificate                                             bool
	allowBoth, allowLegacySigner, allowDuplicateTypes, allowEmptyType, allowArbitraryCert bool
	allowUnknownUsages, allowDuplicateUsages                                              bool
}

func csrOptionsFor(obj, old map[string]any) csrOptions {
	if old == nil {
		return csrOptions{}
	}
	oldSpec, oldStatus := mapOf(old["spec"]), mapOf(old["status"])
	var o csrOptions
	approved, denied := false, false
	seen, dup, empty := map[string]bool{}, false, false
	for _, c := range listOf(oldStatus["conditions"]) {
		t := str(mapOf(c), "type")
		approved = approved || t == "Approved"
		denied = denied || t == "Denied"
		dup = dup || seen[t]
		seen[t] = true
		empty = empty || t == ""
	}
	o.allowBoth = approved && denied
	o.allowLegacySigner = str(oldSpec, "signerName") == legacyUnknownSigner
	o.allowDuplicateTypes, o.allowEmptyType = dup, empty
	newCert, oldCert := decodeBytes(mapOf(obj["status"])["certificate"]), decodeBytes(oldStatus["certificate"])
	o.allowArbitraryCert = bytes.Equal(newCert, oldCert) || checkCertificate(oldCert) != nil
	usages := stringList(oldSpec["usages"])
	u := map[string]bool{}
	for _, x := range usages {
		if !contains(csrUsages, x) {
			o.allowUnknownUsages = true
		}
		if u[x] {
			o.allowDuplicateUsages = true
		}
		u[x] = true
	}
	return o
}

// decodeBytes is a []byte field of the object model: base64 in JSON.
func decodeBytes(v any) []byte {
	s, _ := v.(string)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return []byte(s)
	}
	return b
}

func validateCSR(obj map[string]any, _ Options) field.ErrorList {
	errs, decl := csr(obj, nil, csrOptions{})
	return withDeclarative(errs, decl)
}

func validateCSRUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	o := csrOptionsFor(obj, old)
	switch opts.Subresource {
	case "status":
		o.allowCertificate = true
	case "approval":
		o.allowApprovalConditions = true
	}
	errs, decl := csr(obj, old, o)
	errs = append(errs, csrUpdate(obj, old, o)...)
	return withDeclarative(append(errs, coreObjectMetaUpdate(obj, old)...), decl)
}

// csr is validateCertificateSigningRequest, and the declarative rule on the conditions.
func csr(obj, old map[string]any, o csrOptions) (field.ErrorList, field.ErrorList) {
	errs := coreObjectMeta(obj, false, func(string, bool) []string { return nil })
	spec, st := mapOf(obj["spec"]), mapOf(obj["status"])
	sp := field.NewPath("spec")
	if err := checkCSR(decodeBytes(spec["request"])); err != nil {
		// The bad value is the request's bytes: null when there are none, base64 otherwise.
		var bad any
		if r, ok := spec["request"].(string); ok {
			bad = r
		}
		errs = append(errs, field.Invalid(sp.Child("request"), bad, err.Error()))
	}
	usages := stringList(spec["usages"])
	if len(usages) == 0 {
		errs = append(errs, field.Required(sp.Child("usages"), ""))
	}
	if !o.allowUnknownUsages {
		for i, u := range usages {
			if !contains(csrUsages, u) {
				errs = append(errs, field.NotSupported(sp.Child("usages").Index(i), u, csrUsages))
			}
		}
	}
	if !o.allowDuplicateUsages {
		seen := map[string]bool{}
		for i, u := range usages {
			if seen[u] {
				errs = append(errs, field.Duplicate(sp.Child("usages").Index(i), u))
			}
			seen[u] = true
		}
	}
	if signer := str(spec, "signerName"); !o.allowLegacySigner && signer == legacyUnknownSigner {
		errs = append(errs, field.Invalid(sp.Child("signerName"), signer, "the legacy signerName is not allowed via this API version"))
	} else {
		errs = append(errs, signerName(sp.Child("signerName"), signer)...)
	}
	if e, ok := integer(spec, "expirationSeconds"); ok && e < 600 {
		errs = append(errs, field.Invalid(sp.Child("expirationSeconds"), e, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	errs = append(errs, csrConditions(field.NewPath("status", "conditions"), listOf(st["conditions"]), o)...)
	if !o.allowArbitraryCert {
		if err := checkCertificate(decodeBytes(st["certificate"])); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
		}
	}
	return errs, csrApprovalUnion(st, mapOf(old["status"]), old != nil)
}

// csrConditions is validateConditions without the Approved/Denied exclusion, which the
// declarative rule covers.
func csrConditions(p field.Path, conds []any, o csrOptions) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, c := range conds {
		cm := mapOf(c)
		t := str(cm, "type")
		if !o.allowEmptyType && t == "" {
			errs = append(errs, field.Required(p.Index(i).Child("type"), ""))
		}
		allowed := []string{"False", "True", "Unknown"}
		if t == "Approved" || t == "Denied" || t == "Failed" {
			allowed = []string{"True"}
		}
		switch s := str(cm, "status"); {
		case s == "":
			errs = append(errs, field.Required(p.Index(i).Child("status"), ""))
		case !contains(allowed, s):
			errs = append(errs, field.NotSupported(p.Index(i).Child("status"), s, allowed))
		}
		if !o.allowDuplicateTypes {
			if seen[t] {
				errs = append(errs, field.Duplicate(p.Index(i).Child("type"), t))
			}
			seen[t] = true
		}
	}
	return errs
}

// csrApprovalUnion is the declarative zeroOrOneOf of the Approved and Denied conditions, not
// run again on an update that keeps the conditions or which of the two are present.
func csrApprovalUnion(st, oldSt map[string]any, update bool) field.ErrorList {
	conds, oldConds := listOf(st["conditions"]), listOf(oldSt["conditions"])
	if update && semanticEqual(emptyToNilList(st["conditions"]), emptyToNilList(oldSt["conditions"])) {
		return nil
	}
	has := func(l []any, t string) bool {
		for _, c := range l {
			if str(mapOf(c), "type") == t {
				return true
			}
		}
		return false
	}
	approved, denied := has(conds, "Approved"), has(conds, "Denied")
	if update && oldSt["conditions"] != nil && approved == has(oldConds, "Approved") && denied == has(oldConds, "Denied") {
		return nil
	}
	if approved && denied {
		const members = `conditions[{"type": "Approved"}], conditions[{"type": "Denied"}]`
		return field.ErrorList{field.Invalid(field.NewPath("status", "conditions"), "{"+members+"}", "must specify at most one of: "+members)}
	}
	return nil
}

// csrUpdate is the rest of validateCertificateSigningRequestUpdate: conditions that may not
// be removed, added or changed, and the certificate.
func csrUpdate(obj, old map[string]any, o csrOptions) field.ErrorList {
	var errs field.ErrorList
	st, oldSt := mapOf(obj["status"]), mapOf(old["status"])
	of := func(s map[string]any, t string) []any {
		var out []any
		for _, c := range listOf(s["conditions"]) {
			if str(mapOf(c), "type") == t {
				out = append(out, c)
			}
		}
		return out
	}
	cp := field.NewPath("status", "conditions")
	for _, t := range []string{"Approved", "Denied", "Failed"} {
		if len(of(st, t)) < len(of(oldSt, t)) {
			errs = append(errs, field.Forbidden(cp, fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if !o.allowApprovalConditions {
		for _, t := range []string{"Approved", "Denied"} {
			n, old := of(st, t), of(oldSt, t)
			switch {
			case len(n) < len(old):
			case len(n) > len(old):
				errs = append(errs, field.Forbidden(cp, fmt.Sprintf("updates may not add a condition of type %q", t)))
			case !semanticEqual(n, old):
				// Unreachable through the strategies (the main resource keeps the stored status,
				// /status the stored Approved and Denied conditions); the apiserver appends a
				// diff of the internal conditions, which is not rendered.
				errs = append(errs, field.Forbidden(cp, fmt.Sprintf("updates may not modify a condition of type %q", t)))
			}
		}
	}
	newCert, oldCert := decodeBytes(st["certificate"]), decodeBytes(oldSt["certificate"])
	if !bytes.Equal(newCert, oldCert) {
		cert := field.NewPath("status", "certificate")
		if !o.allowCertificate {
			errs = append(errs, field.Forbidden(cert, "updates may not set certificate content"))
		} else if len(oldCert) > 0 {
			errs = append(errs, field.Forbidden(cert, "updates may not modify existing certificate content"))
		}
	}
	return errs
}

// checkCSR is certificates.ParseCSR and the signature check.
func checkCSR(pemBytes []byte) error {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return err
	}
	return req.CheckSignature()
}

// checkCertificate is validateCertificate: nothing, or CERTIFICATE blocks without headers that
// parse.
func checkCertificate(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return fmt.Errorf("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return fmt.Errorf("found CERTIFICATE PEM block containing 0 certificates")
		}
		data = rest
	}
	if blocks == 0 {
		return fmt.Errorf("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// signerName is core's ValidateSignerName: a domain of DNS labels (at least two), a slash, and
// a path of DNS subdomains, 571 characters at most.
func signerName(p field.Path, s string) field.ErrorList {
	if s == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	segs := strings.Split(s, "/")
	if len(segs) != 2 {
		return field.ErrorList{field.Invalid(p, s, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	if len(segs[0]) > 253 {
		errs = append(errs, field.TooLong(p, "", 253))
	}
	labels := strings.Split(segs[0], ".")
	for _, l := range labels {
		if ms := ivalidation.IsDNS1123Label(l); len(ms) > 0 {
			for _, m := range ms {
				errs = append(errs, field.Invalid(p, segs[0], fmt.Sprintf("validating label %q: %s", l, m)))
			}
			break
		}
	}
	if len(labels) < 2 {
		errs = append(errs, field.Invalid(p, segs[0], "should be a domain with at least two segments separated by dots"))
	}
	for _, l := range strings.Split(segs[1], ".") {
		if ms := ivalidation.IsDNS1123Subdomain(l); len(ms) > 0 {
			for _, m := range ms {
				errs = append(errs, field.Invalid(p, segs[1], fmt.Sprintf("validating label %q: %s", l, m)))
			}
			break
		}
	}
	if max := 253 + (253 + 63 + 1) + 1; len(s) > max {
		errs = append(errs, field.TooLong(p, "", max))
	}
	return errs
}

// ClusterTrustBundle.

const maxTrustBundleSize = 1 << 20

func validateCTB(obj map[string]any, _ Options) field.ErrorList {
	return distinct(clusterTrustBundle(obj, false))
}

func validateCTBUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	suppress := str(mapOf(obj["spec"]), "trustBundle") == str(mapOf(old["spec"]), "trustBundle")
	errs := append(clusterTrustBundle(obj, suppress), coreObjectMetaUpdate(obj, old)...)
	// The signer name's immutability is hand-written and marked alpha in declarative
	// validation (not enforced): the hand-written error stands.
	errs = append(errs, immutable(field.NewPath("spec", "signerName"), str(mapOf(obj["spec"]), "signerName"), str(mapOf(old["spec"]), "signerName"))...)
	return distinct(errs)
}

// clusterTrustBundle is ValidateClusterTrustBundle: the name (prefixed by the signer name
// when there is one), the signer name, and the PEM bundle unless suppressed.
func clusterTrustBundle(obj map[string]any, suppressBundle bool) field.ErrorList {
	spec := mapOf(obj["spec"])
	signer := str(spec, "signerName")
	errs := coreObjectMeta(obj, false, ctbName(signer))
	if signer != "" {
		errs = append(errs, signerName(field.NewPath("spec", "signerName"), signer)...)
	}
	if !suppressBundle {
		errs = append(errs, trustBundle(field.NewPath("spec", "trustBundle"), str(spec, "trustBundle"))...)
	}
	return errs
}

// ctbName is ValidateClusterTrustBundleName.
func ctbName(signer string) func(string, bool) []string {
	return func(name string, prefix bool) []string {
		if signer == "" {
			if strings.Contains(name, ":") {
				return []string{`ClusterTrustBundle without signer name must not have ":" in its name`}
			}
			return ivalidation.NameIsDNSSubdomain(name, prefix)
		}
		required := strings.ReplaceAll(signer, "/", ":") + ":"
		if !strings.HasPrefix(name, required) {
			return []string{fmt.Sprintf("ClusterTrustBundle for signerName %s must be named with prefix %s", signer, required)}
		}
		return ivalidation.NameIsDNSSubdomain(strings.TrimPrefix(name, required), prefix)
	}
}

// trustBundle is validateTrustBundle: CA certificates without headers, at least one, none
// twice. Duplicates are listed in the order of their first index (the apiserver ranges over a
// map: its order varies).
func trustBundle(p field.Path, in string) field.ErrorList {
	if len(in) > maxTrustBundleSize {
		return field.ErrorList{field.TooLong(p, "", maxTrustBundleSize)}
	}
	var errs field.ErrorList
	seen := map[string][]int{}
	var order []string
	rest := []byte(in)
	for i := 0; ; i++ {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		bad := func(d string) {
			errs = append(errs, field.Invalid(p, "<value omitted>", fmt.Sprintf("entry %d %s", i, d)))
		}
		if b.Type != "CERTIFICATE" {
			bad("has bad block type: " + b.Type)
			continue
		}
		if len(b.Headers) != 0 {
			bad("has PEM block headers")
			continue
		}
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			bad("does not parse as X.509")
			continue
		}
		if !cert.IsCA {
			bad("does not have the CA bit set")
			continue
		}
		if !cert.BasicConstraintsValid {
			bad("has invalid basic constraints")
			continue
		}
		k := string(b.Bytes)
		if _, ok := seen[k]; !ok {
			order = append(order, k)
		}
		seen[k] = append(seen[k], i)
	}
	if len(errs) > 0 {
		return errs
	}
	if len(seen) == 0 {
		return field.ErrorList{field.Invalid(p, "<value omitted>", "at least one trust anchor must be provided")}
	}
	sort.SliceStable(order, func(a, b int) bool { return seen[order[a]][0] < seen[order[b]][0] })
	for _, k := range order {
		if idx := seen[k]; len(idx) > 1 {
			errs = append(errs, field.Invalid(p, "<value omitted>", fmt.Sprintf("duplicate trust anchor (indices %v)", idx)))
		}
	}
	return errs
}

// prepareCSRCreate is the strategy's PrepareForCreate.
func prepareCSRCreate(obj map[string]any, opts Options) map[string]any {
	out := copyMap(obj)
	spec := copyMap(mapOf(obj["spec"]))
	if spec == nil {
		spec = map[string]any{}
	}
	for _, k := range []string{"username", "uid", "groups", "extra"} {
		delete(spec, k)
	}
	if u := opts.User; u != nil {
		if u.Name != "" {
			spec["username"] = u.Name
		}
		if u.UID != "" {
			spec["uid"] = u.UID
		}
		if len(u.Groups) > 0 {
			g := make([]any, len(u.Groups))
			for i, x := range u.Groups {
				g[i] = x
			}
			spec["groups"] = g
		}
		if len(u.Extra) > 0 {
			ex := make(map[string]any, len(u.Extra))
			for k, v := range u.Extra {
				l := make([]any, len(v))
				for i, x := range v {
					l[i] = x
				}
				ex[k] = l
			}
			spec["extra"] = ex
		}
	}
	out["spec"] = spec
	out["status"] = map[string]any{}
	return out
}

// prepareCSRUpdate is the strategies' PrepareForUpdate.
func prepareCSRUpdate(obj, old map[string]any, opts Options) map[string]any {
	out := copyMap(obj)
	if s, ok := old["spec"]; ok {
		out["spec"] = s
	} else {
		delete(out, "spec")
	}
	oldSt := mapOf(old["status"])
	switch opts.Subresource {
	case "":
		if s, ok := old["status"]; ok {
			out["status"] = s
		} else {
			delete(out, "status")
		}
	case "status":
		st := copyMap(mapOf(obj["status"]))
		if st == nil {
			return out
		}
		conds := append([]any(nil), listOf(st["conditions"])...)
		for _, t := range []string{"Approved", "Denied"} {
			var oi, ni []int
			for i, c := range listOf(oldSt["conditions"]) {
				if str(mapOf(c), "type") == t {
					oi = append(oi, i)
				}
			}
			for i, c := range conds {
				if str(mapOf(c), "type") == t {
					ni = append(ni, i)
				}
			}
			if len(oi) == len(ni) {
				for i, o := range oi {
					conds[ni[i]] = listOf(oldSt["conditions"])[o]
				}
			}
		}
		if len(conds) > 0 {
			st["conditions"] = conditionTimes(conds, listOf(oldSt["conditions"]), opts)
		}
		out["status"] = st
	case "approval":
		st := copyMap(oldSt)
		if st == nil {
			st = map[string]any{}
		}
		if conds := listOf(mapOf(obj["status"])["conditions"]); len(conds) > 0 {
			st["conditions"] = conditionTimes(conds, listOf(oldSt["conditions"]), opts)
		} else {
			delete(st, "conditions")
		}
		out["status"] = st
	}
	return out
}

// conditionTimes is populateConditionTimestamps on fresh copies of conds.
func conditionTimes(conds, oldConds []any, opts Options) []any {
	now := opts.Now.UTC().Format("2006-01-02T15:04:05Z")
	out := make([]any, len(conds))
	for i, c := range conds {
		cm := copyMap(mapOf(c))
		if cm == nil {
			cm = map[string]any{}
		}
		if isZeroTime(cm["lastUpdateTime"]) {
			cm["lastUpdateTime"] = now
		}
		if isZeroTime(cm["lastTransitionTime"]) {
			t := now
			for _, o := range oldConds {
				om := mapOf(o)
				if str(om, "type") == str(cm, "type") && str(om, "status") == str(cm, "status") && !isZeroTime(om["lastTransitionTime"]) {
					t, _ = om["lastTransitionTime"].(string)
					break
				}
			}
			cm["lastTransitionTime"] = t
		}
		out[i] = cm
	}
	return out
}
