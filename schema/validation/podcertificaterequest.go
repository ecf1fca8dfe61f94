package validation

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/mail"
	"strconv"
	"strings"
	"time"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// PodCertificateRequest (certificates.k8s.io) as ValidatePodCertificateRequestCreate(Update,
// StatusUpdate) with its strategies: the signer, the pod, service account and node it is for,
// maxExpirationSeconds in [1h, 24h] for a Kubernetes signer and [1h, 91d] otherwise, and either
// a stub PKCS#10 request (its key Ed25519, ECDSA P256/P384/P521 or RSA 3072/4096, its signature
// valid) or, through v1beta1, a PKIX public key with its proof of possession (the pod UID signed).
// The spec is immutable. /status: at most one of the Issued, Denied and Failed conditions, each
// True, no other type; once terminal the status is fixed; Denied or Failed carry nothing else;
// Issued carries the chain whose leaf was issued to the requested key, with notBefore (within
// 5 minutes of the request's time), notAfter and beginRefreshAt consistent with it. Its
// declarative rules are alpha (shadowed). The "sign" authorization a status change needs is
// not checked (RBAC is not modelled).

const (
	pcrMinExpiration            = 60 * 60
	pcrKubernetesMaxExpiration  = 24 * 60 * 60
	pcrMaxExpiration            = 91 * 24 * 60 * 60
	pcrMaxKeySize               = 10 * 1024 // MaxPKIXPublicKeySize, MaxProofOfPossessionSize, MaxStubPKCS10RequestSize
	pcrMaxCertificateChainBytes = 100 * 1024
)

var pcrTerminal = []string{"Issued", "Denied", "Failed"}

func validatePodCertificateRequest(obj map[string]any, _ Options) field.ErrorList {
	return distinct(podCertificateRequestCreate(obj))
}

func podCertificateRequestCreate(obj map[string]any) field.ErrorList {
	errs := coreObjectMeta(obj, true, ivalidation.NameIsDNSSubdomain)
	spec := mapOf(obj["spec"])
	p := field.NewPath("spec")
	signer := str(spec, "signerName")
	errs = append(errs, signerName(p.Child("signerName"), signer)...)
	if ann, ok := spec["unverifiedUserAnnotations"].(map[string]any); ok {
		errs = append(errs, userAnnotations(p.Child("unverifiedUserAnnotations"), ann)...)
	}
	for _, f := range []struct{ name, uid string }{{"podName", "podUID"}, {"serviceAccountName", "serviceAccountUID"}, {"nodeName", "nodeUID"}} {
		name := str(spec, f.name)
		for _, m := range ivalidation.NameIsDNSSubdomain(name, false) {
			errs = append(errs, field.Invalid(p.Child(f.name), name, m))
		}
		uid := str(spec, f.uid)
		if uid == "" {
			errs = append(errs, field.Invalid(p.Child(f.uid), uid, "must not be empty"))
		}
		if len(uid) > 128 {
			errs = append(errs, field.TooLong(p.Child(f.uid), uid, 128))
		}
	}
	maxExp, ok := integer(spec, "maxExpirationSeconds")
	if !ok {
		return append(errs, field.Required(p.Child("maxExpirationSeconds"), "must be set"))
	}
	hi := int64(pcrMaxExpiration)
	if isKubernetesSignerName(signer) {
		hi = pcrKubernetesMaxExpiration
	}
	if maxExp < pcrMinExpiration || maxExp > hi {
		errs = append(errs, field.Invalid(p.Child("maxExpirationSeconds"), maxExp, fmt.Sprintf("must be in the range [%d, %d]", pcrMinExpiration, hi)))
	}
	stub, pkix, pop := pcrBytes(spec, "stubPKCS10Request"), pcrBytes(spec, "pkixPublicKey"), pcrBytes(spec, "proofOfPossession")
	switch {
	case len(stub) != 0 && len(pkix) == 0 && len(pop) == 0:
		return append(errs, stubPKCS10Request(stub)...)
	case len(stub) == 0 && len(pkix) != 0 && len(pop) != 0:
		return append(errs, pkixProofOfPossession(spec, pkix, pop)...)
	}
	return append(errs, field.Invalid(p, field.OmitValueType{}, "exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set"))
}

// pcrBytes is a []byte field of the spec: its base64 text decoded.
func pcrBytes(spec map[string]any, key string) []byte {
	b, _ := base64.StdEncoding.DecodeString(str(spec, key))
	return b
}

// isKubernetesSignerName is core's IsKubernetesSignerName: a signer of kubernetes.io or a
// subdomain of it.
func isKubernetesSignerName(s string) bool {
	host, _, _ := strings.Cut(s, "/")
	return host == "kubernetes.io" || strings.HasSuffix(host, ".kubernetes.io")
}

// userAnnotations is core's ValidateUserAnnotations: each key (lower-cased) a domain-prefixed
// label key (the reference ranges over the map: Go's order), and the annotations' total size.
func userAnnotations(p field.Path, ann map[string]any) field.ErrorList {
	var errs field.ErrorList
	total := 0
	for _, k := range sortedKeys(ann) {
		errs = append(errs, domainPrefixedKey(p, strings.ToLower(k))...)
		v, _ := ann[k].(string)
		total += len(k) + len(v)
	}
	if total > 256*(1<<10) {
		errs = append(errs, field.TooLong(p, "", 256*(1<<10)))
	}
	return errs
}

// domainPrefixedKey is apimachinery's IsDomainPrefixedKey: a non-empty label key with a prefix.
func domainPrefixedKey(p field.Path, key string) field.ErrorList {
	if key == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if errs := qualifiedName(p, key); len(errs) > 0 {
		return errs
	}
	if len(strings.Split(key, "/")) != 2 {
		return field.ErrorList{field.Invalid(p, key, "must be a domain-prefixed key (such as \"acme.io/foo\")")}
	}
	return nil
}

// pkixProofOfPossession is validateDeprecatedPKIXPublicKey: the key's type and size, and the
// pod UID signed by it.
func pkixProofOfPossession(spec map[string]any, pkix, pop []byte) field.ErrorList {
	p := field.NewPath("spec")
	if len(pkix) > pcrMaxKeySize {
		return field.ErrorList{field.TooLong(p.Child("pkixPublicKey"), "", pcrMaxKeySize)}
	}
	if len(pop) > pcrMaxKeySize {
		return field.ErrorList{field.TooLong(p.Child("proofOfPossession"), "", pcrMaxKeySize)}
	}
	pkixPath, popPath := p.Child("pkixPublicKey"), p.Child("proofOfPossession")
	key, err := x509.ParsePKIXPublicKey(pkix)
	if err != nil {
		return field.ErrorList{field.Invalid(pkixPath, str(spec, "pkixPublicKey"), "must be a valid PKIX-serialized public key")}
	}
	uid := []byte(str(spec, "podUID"))
	unverified := field.ErrorList{field.Invalid(popPath, field.OmitValueType{}, "could not verify proof-of-possession signature")}
	switch k := key.(type) {
	case ed25519.PublicKey:
		if !ed25519.Verify(k, uid, pop) {
			return unverified
		}
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() && k.Curve != elliptic.P384() && k.Curve != elliptic.P521() {
			return field.ErrorList{field.Invalid(pkixPath, "curve "+k.Curve.Params().Name, "elliptic public keys must use curve P256 or P384")}
		}
		if h := sha256.Sum256(uid); !ecdsa.VerifyASN1(k, h[:], pop) {
			return unverified
		}
	case *rsa.PublicKey:
		if bits := k.Size() * 8; bits != 3072 && bits != 4096 {
			return field.ErrorList{field.Invalid(pkixPath, fmt.Sprintf("%d-bit modulus", bits), "RSA keys must have modulus size 3072 or 4096")}
		}
		if h := sha256.Sum256(uid); rsa.VerifyPSS(k, crypto.SHA256, h[:], pop, nil) != nil {
			return unverified
		}
	default:
		return field.ErrorList{field.Invalid(pkixPath, str(spec, "pkixPublicKey"), "unknown public key type; supported types are Ed25519, ECDSA, and RSA")}
	}
	return nil
}

// stubPKCS10Request is validateStubPKCS10Request: a PKCS#10 request whose key is of a supported
// type and size and whose signature is valid (its contents are not checked).
func stubPKCS10Request(stub []byte) field.ErrorList {
	p := field.NewPath("spec", "stubPKCS10Request")
	if len(stub) > pcrMaxKeySize {
		return field.ErrorList{field.TooLong(p, "", pcrMaxKeySize)}
	}
	req, err := x509.ParseCertificateRequest(stub)
	if err != nil {
		return field.ErrorList{field.Invalid(p, field.OmitValueType{}, "must be a valid PKCS#10 CSR")}
	}
	switch k := req.PublicKey.(type) {
	case ed25519.PublicKey:
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() && k.Curve != elliptic.P384() && k.Curve != elliptic.P521() {
			return field.ErrorList{field.Invalid(p, "curve "+k.Curve.Params().Name, "elliptic public keys must use curve P256, P384, or P521")}
		}
	case *rsa.PublicKey:
		if bits := k.Size() * 8; bits != 3072 && bits != 4096 {
			return field.ErrorList{field.Invalid(p, fmt.Sprintf("%d-bit modulus", bits), "RSA keys must have modulus size 3072 or 4096")}
		}
	default:
		return field.ErrorList{field.Invalid(p, field.OmitValueType{}, "unknown public key type; supported types are Ed25519, ECDSA, and RSA")}
	}
	if req.CheckSignature() != nil {
		return field.ErrorList{field.Invalid(p, field.OmitValueType{}, "invalid signature")}
	}
	return nil
}

func validatePodCertificateRequestUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	switch opts.Subresource {
	case "status":
		return distinct(podCertificateRequestStatusUpdate(obj, old, opts.Now))
	case "":
	default:
		return nil
	}
	errs := coreObjectMetaUpdate(obj, old)
	st := goTypeAt("certificates.k8s.io", "PodCertificateRequest", "spec")
	if !goSemanticEqual(st, obj["spec"], old["spec"]) || string(pcrBytes(mapOf(obj["spec"]), "pkixPublicKey")) != string(pcrBytes(mapOf(old["spec"]), "pkixPublicKey")) ||
		string(pcrBytes(mapOf(obj["spec"]), "proofOfPossession")) != string(pcrBytes(mapOf(old["spec"]), "proofOfPossession")) {
		errs = append(errs, field.Invalid(field.NewPath("spec"), pcrInternalSpec(mapOf(obj["spec"])), "field is immutable"))
	}
	return distinct(errs)
}

// pcrInternalSpec is the internal PodCertificateRequestSpec as a bad value: its fields in the
// internal order, where the v1beta1-only PKIXPublicKey and ProofOfPossession come before
// StubPKCS10Request.
func pcrInternalSpec(spec map[string]any) json.RawMessage {
	t := goTypeAt("certificates.k8s.io", "PodCertificateRequest", "spec")
	b := []byte{'{'}
	for i, f := range []string{"signerName", "podName", "podUID", "serviceAccountName", "serviceAccountUID", "nodeName", "nodeUID",
		"maxExpirationSeconds", "pkixPublicKey", "proofOfPossession", "stubPKCS10Request", "unverifiedUserAnnotations"} {
		if i > 0 {
			b = append(b, ',')
		}
		name := strings.ToUpper(f[:1]) + f[1:]
		if f == "pkixPublicKey" {
			name = "PKIXPublicKey"
		}
		b = append(strconv.AppendQuote(b, name), ':')
		switch f {
		case "pkixPublicKey", "proofOfPossession":
			if s, ok := spec[f].(string); ok {
				b = strconv.AppendQuote(b, s)
			} else {
				b = append(b, "null"...)
			}
		default:
			b = append(b, internalGo(t.Field(f), spec[f])...)
		}
	}
	return append(b, '}')
}

func podCertificateRequestStatusUpdate(obj, old map[string]any, now time.Time) field.ErrorList {
	if errs := coreObjectMetaUpdate(obj, old); len(errs) > 0 {
		return errs
	}
	st, oldSt := mapOf(obj["status"]), mapOf(old["status"])
	conds := listOf(st["conditions"])
	cp := field.NewPath("status", "conditions")
	var errs field.ErrorList
	known := 0
	for i, raw := range conds {
		c := mapOf(raw)
		ip := cp.Child("[" + strconv.Itoa(i) + "]")
		switch typ := str(c, "type"); typ {
		case "Issued", "Denied", "Failed":
			known++
			if known > 1 {
				errs = append(errs, field.Invalid(ip.Child("type"), typ, `There may be at most one condition with type "Issued", "Denied", or "Failed"`))
			}
			if s := str(c, "status"); s != "True" {
				errs = append(errs, field.NotSupported(ip.Child("status"), s, []string{"True"}))
			}
		default:
			errs = append(errs, field.NotSupported(ip.Child("type"), typ, pcrTerminal))
		}
	}
	errs = append(errs, MetaConditions(cp, conds)...)
	if len(errs) > 0 {
		return errs
	}
	statusType := goTypeAt("certificates.k8s.io", "PodCertificateRequest", "status")
	sp := field.NewPath("status")
	oldConds := listOf(oldSt["conditions"])
	if pcrCondition(oldConds, "Issued") || pcrCondition(oldConds, "Denied") || pcrCondition(oldConds, "Failed") {
		if !goSemanticEqual(statusType, st, oldSt) {
			errs = append(errs, field.Invalid(sp, field.OmitValueType{}, "immutable after PodCertificateRequest is issued, denied, or failed"))
		}
		return errs
	}
	if pcrCondition(conds, "Denied") || pcrCondition(conds, "Failed") {
		if !goSemanticEqual(statusType, st, map[string]any{"conditions": st["conditions"]}) {
			errs = append(errs, field.Invalid(sp, field.OmitValueType{}, "non-condition status fields must be empty when denying or failing the PodCertificateRequest"))
		}
		return errs
	}
	if pcrCondition(conds, "Issued") {
		return pcrIssued(st, mapOf(old["spec"]), mapOf(obj["spec"]), now)
	}
	if !goSemanticEqual(statusType, st, oldSt) {
		errs = append(errs, field.Invalid(sp, field.OmitValueType{}, `status is immutable unless transitioning to "Issued", "Denied", or "Failed"`))
	}
	return errs
}

// pcrCondition reports whether conds hold a condition of the type with status True.
func pcrCondition(conds []any, typ string) bool {
	for _, c := range conds {
		if m := mapOf(c); str(m, "type") == typ && str(m, "status") == "True" {
			return true
		}
	}
	return false
}

// pcrIssued is the Issued transition's checks of the certificate chain and its times.
func pcrIssued(st, oldSpec, spec map[string]any, now time.Time) field.ErrorList {
	chainPath := field.NewPath("status", "certificateChain")
	chain := str(st, "certificateChain")
	if len(chain) > pcrMaxCertificateChainBytes {
		return field.ErrorList{field.TooLong(chainPath, "", pcrMaxCertificateChainBytes)}
	}
	leafBlock, rest := pem.Decode([]byte(chain))
	if leafBlock == nil {
		return field.ErrorList{field.Invalid(chainPath, chain, "issued certificate chain must contain at least one certificate")}
	}
	if leafBlock.Type != "CERTIFICATE" {
		return field.ErrorList{field.Invalid(chainPath, chain, "issued certificate chain must consist entirely of CERTIFICATE PEM blocks")}
	}
	leaf, err := x509.ParseCertificate(leafBlock.Bytes)
	if err != nil {
		return field.ErrorList{field.Invalid(chainPath, chain, "leaf certificate does not parse as valid X.509")}
	}
	var errs field.ErrorList
	for _, name := range leaf.DNSNames {
		if name == "" {
			errs = append(errs, field.Invalid(chainPath, name, "leaf certificate should not contain empty DNSName"))
		}
		if strings.Contains(name, "..") {
			errs = append(errs, field.Invalid(chainPath, name, "leaf certificate's DNSName should not contain '..'"))
		}
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") {
			errs = append(errs, field.Invalid(chainPath, name, "leaf certificate's DNSName should not start or end with '.'"))
		}
	}
	for _, addr := range leaf.EmailAddresses {
		if _, err := mail.ParseAddress(addr); err != nil {
			errs = append(errs, field.Invalid(chainPath, addr, "leaf certificate should not contain invalid EmailAddress"))
		}
	}
	var want crypto.PublicKey
	if stub := pcrBytes(oldSpec, "stubPKCS10Request"); len(stub) != 0 {
		req, err := x509.ParseCertificateRequest(stub)
		if err != nil {
			return append(errs, field.Invalid(field.NewPath("spec", "stubPKCS10Request"), field.OmitValueType{}, "must be a valid PKCS#10 CSR"))
		}
		want = req.PublicKey
	} else if want, err = x509.ParsePKIXPublicKey(pcrBytes(oldSpec, "pkixPublicKey")); err != nil {
		return append(errs, field.Invalid(field.NewPath("spec", "pkixPublicKey"), field.OmitValueType{}, "must be a valid PKIX-serialized public key"))
	}
	if k, ok := want.(interface{ Equal(crypto.PublicKey) bool }); ok && !k.Equal(leaf.PublicKey) {
		switch want.(type) {
		case ed25519.PublicKey, *rsa.PublicKey, *ecdsa.PublicKey:
			return append(errs, field.Invalid(chainPath, chain, "leaf certificate was not issued to the requested public key"))
		}
	}
	notBeforePath, notAfterPath, refreshPath := field.NewPath("status", "notBefore"), field.NewPath("status", "notAfter"), field.NewPath("status", "beginRefreshAt")
	notBefore, hasNotBefore := timeOrZero(st["notBefore"])
	notAfter, hasNotAfter := timeOrZero(st["notAfter"])
	refresh, hasRefresh := timeOrZero(st["beginRefreshAt"])
	if st["notBefore"] == nil || !hasNotBefore {
		errs = append(errs, field.Required(notBeforePath, "must be present and consistent with the issued certificate"))
	}
	if st["notAfter"] == nil || !hasNotAfter {
		errs = append(errs, field.Required(notAfterPath, "must be present and consistent with the issued certificate"))
	}
	if st["beginRefreshAt"] == nil || !hasRefresh {
		errs = append(errs, field.Required(refreshPath, "must be present and in the range [notbefore+10min, notafter-10min]"))
	}
	if len(errs) > 0 {
		return errs
	}
	timeValue := func(t time.Time) string { return t.Format(time.RFC3339Nano) }
	switch {
	case !notBefore.Equal(leaf.NotBefore):
		return field.ErrorList{field.Invalid(notBeforePath, timeValue(notBefore), "must be set to the NotBefore time encoded in the leaf certificate")}
	case !(notBefore.After(now.Add(-5*time.Minute)) && notBefore.Before(now.Add(5*time.Minute))):
		return field.ErrorList{field.Invalid(notBeforePath, timeValue(notBefore), "must be set to within 5 minutes of kube-apiserver's current time")}
	case !notAfter.Equal(leaf.NotAfter):
		return field.ErrorList{field.Invalid(notAfterPath, timeValue(notAfter), "must be set to the NotAfter time encoded in the leaf certificate")}
	}
	lifetime := leaf.NotAfter.Sub(leaf.NotBefore)
	maxExp, _ := integer(spec, "maxExpirationSeconds")
	switch {
	case lifetime < time.Hour:
		return field.ErrorList{field.Invalid(chainPath, int64(lifetime), "leaf certificate lifetime must be >= 1 hour")}
	case lifetime > time.Duration(maxExp)*time.Second:
		return field.ErrorList{field.Invalid(chainPath, int64(lifetime), fmt.Sprintf("leaf certificate lifetime must be <= spec.maxExpirationSeconds (%v)", maxExp))}
	case refresh.Before(notBefore.Add(10 * time.Minute)):
		return field.ErrorList{field.Invalid(refreshPath, timeValue(refresh), "must be at least 10 minutes after status.notBefore")}
	case refresh.After(notAfter.Add(-10 * time.Minute)):
		return field.ErrorList{field.Invalid(refreshPath, timeValue(refresh), "must be at least 10 minutes before status.notAfter")}
	}
	for {
		var next *pem.Block
		if next, rest = pem.Decode(rest); next == nil {
			return nil
		}
		if next.Type != "CERTIFICATE" {
			return field.ErrorList{field.Invalid(chainPath, chain, "issued certificate chain must consist entirely of CERTFICATE PEM blocks")}
		}
		if _, err := x509.ParseCertificate(next.Bytes); err != nil {
			return field.ErrorList{field.Invalid(chainPath, chain, "intermediate certificate does not parse as valid X.509")}
		}
	}
}
