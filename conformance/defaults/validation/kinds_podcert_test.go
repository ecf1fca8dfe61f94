package validation

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	mrand "math/rand"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/certificates"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	"k8s.io/kubernetes/pkg/registry/certificates/podcertificaterequest"
	testclock "k8s.io/utils/clock/testing"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// pcrNow is the time of the PodCertificateRequest status strategy's clock and writepath's
// requests: the issued certificates' notBefore.
var pcrNow = time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)

// pcrKeys are the key pairs the seeds' stub requests carry, made once: each one's stub PKCS#10
// request and a chain issued to it (leaf and issuer), valid from pcrNow for 24 hours.
type pcrKey struct {
	key   *ecdsa.PrivateKey
	stub  []byte
	chain string
}

var pcrKeys = sync.OnceValue(func() []pcrKey {
	ca, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, NotBefore: pcrNow, NotAfter: pcrNow.Add(48 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &ca.PublicKey, ca)
	if err != nil {
		panic(err)
	}
	var out []pcrKey
	for _, curve := range []elliptic.Curve{elliptic.P256(), elliptic.P384(), elliptic.P224()} {
		k, err := ecdsa.GenerateKey(curve, rand.Reader)
		if err != nil {
			panic(err)
		}
		stub, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, k)
		if err != nil {
			panic(err)
		}
		leaf := &x509.Certificate{SerialNumber: big.NewInt(2), NotBefore: pcrNow, NotAfter: pcrNow.Add(24 * time.Hour),
			DNSNames: []string{"web.default.svc"}}
		der, err := x509.CreateCertificate(rand.Reader, leaf, caTmpl, &k.PublicKey, ca)
		if err != nil {
			panic(err)
		}
		chain := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})) + string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
		out = append(out, pcrKey{key: k, stub: stub, chain: chain})
	}
	return out
})

func podCertificateKinds() []harnessKind {
	s := podcertificaterequest.NewStrategy()
	status := podcertificaterequest.NewStatusStrategy(s, authorizerfactory.NewAlwaysAllowAuthorizer(), testclock.NewFakeClock(pcrNow))
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "certificates.k8s.io", Version: "v1", Kind: "PodCertificateRequest"}, resource: "podcertificaterequests",
			seed: seedPodCertificateRequest, complete: true, stored: podCertificateRequestStatus, now: pcrNow,
			create: s, updates: map[string]rest.RESTUpdateStrategy{"": s, "status": status}},
	}
}

func seedPodCertificateRequest(r *mrand.Rand) runtime.Object {
	p := &certificatesv1.PodCertificateRequest{TypeMeta: metav1.TypeMeta{APIVersion: "certificates.k8s.io/v1", Kind: "PodCertificateRequest"}, ObjectMeta: seedMeta(r)}
	p.Spec = certificatesv1.PodCertificateRequestSpec{
		SignerName: pick(r, []string{"example.com/signer", "kubernetes.io/kube-apiserver-client-pod", "clusterissuer.example.com/ns.name"}),
		PodName:    "web-0", PodUID: "0a7c1f2e-0000-4000-8000-000000000001",
		ServiceAccountName: "default", ServiceAccountUID: "0a7c1f2e-0000-4000-8000-000000000002",
		NodeName: "node-1", NodeUID: "0a7c1f2e-0000-4000-8000-000000000003",
		MaxExpirationSeconds: ptr(pick(r, []int32{3600, 86400})),
		StubPKCS10Request:    pick(r, pcrKeys()[:2]).stub,
	}
	if r.Intn(5) == 0 {
		p.Spec.StubPKCS10Request = pcrKeys()[2].stub // P224: refused
	}
	if r.Intn(3) == 0 {
		p.Spec.UnverifiedUserAnnotations = map[string]string{"example.com/team": "a"}
	}
	return p
}

// podCertificateRequestStatus gives some stored requests the status a signer writes: Denied,
// Failed, or Issued with the chain issued to the request's key.
func podCertificateRequestStatus(r *mrand.Rand, obj runtime.Object) {
	p := obj.(*certificates.PodCertificateRequest)
	cond := func(t string) []metav1.Condition {
		return []metav1.Condition{{Type: t, Status: metav1.ConditionTrue, Reason: "Signer" + t, LastTransitionTime: metav1.NewTime(pcrNow)}}
	}
	switch r.Intn(4) {
	case 0:
		p.Status.Conditions = cond("Denied")
	case 1:
		p.Status.Conditions = cond("Failed")
	case 2:
		for _, k := range pcrKeys() {
			if string(k.stub) == string(p.Spec.StubPKCS10Request) {
				nb, na, refresh := metav1.NewTime(pcrNow), metav1.NewTime(pcrNow.Add(24*time.Hour)), metav1.NewTime(pcrNow.Add(12*time.Hour))
				p.Status = certificates.PodCertificateRequestStatus{Conditions: cond("Issued"), CertificateChain: k.chain, NotBefore: &nb, NotAfter: &na, BeginRefreshAt: &refresh}
			}
		}
	}
}

// The Issued transition of a PodCertificateRequest's /status, which single mutations of a
// stored request do not reach: a pending request issued with its chain, and each way the
// chain, its times or the conditions can be wrong, validated by both.
func TestPodCertificateRequestIssued(t *testing.T) {
	k := podCertificateKinds()[0]
	s := k.updates["status"]
	keys := pcrKeys()
	base := seedPodCertificateRequest(mrand.New(mrand.NewSource(1))).(*certificatesv1.PodCertificateRequest)
	base.Namespace = "validation-pod"
	base.Spec.StubPKCS10Request = keys[0].stub
	base.Spec.MaxExpirationSeconds = ptr(int32(86400))
	at := func(d time.Duration) *metav1.Time { t := metav1.NewTime(pcrNow.Add(d)); return &t }
	issued := func(conds ...string) certificatesv1.PodCertificateRequestStatus {
		st := certificatesv1.PodCertificateRequestStatus{CertificateChain: keys[0].chain, NotBefore: at(0), NotAfter: at(24 * time.Hour), BeginRefreshAt: at(12 * time.Hour)}
		if len(conds) == 0 {
			conds = []string{"Issued"}
		}
		for _, c := range conds {
			st.Conditions = append(st.Conditions, metav1.Condition{Type: c, Status: metav1.ConditionTrue, Reason: "Signed", LastTransitionTime: metav1.NewTime(pcrNow)})
		}
		return st
	}
	cases := map[string]func(st *certificatesv1.PodCertificateRequestStatus, spec *certificatesv1.PodCertificateRequestSpec){
		"valid": func(*certificatesv1.PodCertificateRequestStatus, *certificatesv1.PodCertificateRequestSpec) {},
		"other key": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.CertificateChain = keys[1].chain
		},
		"no chain": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.CertificateChain = ""
		},
		"garbage chain": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.CertificateChain = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
		},
		"not a certificate": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.CertificateChain = "-----BEGIN KEY-----\nAAAA\n-----END KEY-----\n"
		},
		"bad intermediate": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.CertificateChain += "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
		},
		"other block after": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.CertificateChain += "-----BEGIN KEY-----\nAAAA\n-----END KEY-----\n"
		},
		"no times": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.NotBefore, st.NotAfter, st.BeginRefreshAt = nil, nil, nil
		},
		"no refresh": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.BeginRefreshAt = nil
		},
		"notBefore not leaf's": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.NotBefore = at(time.Minute)
		},
		"notAfter not leaf's": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.NotAfter = at(23 * time.Hour)
		},
		"refresh too early": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.BeginRefreshAt = at(5 * time.Minute)
		},
		"refresh too late": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.BeginRefreshAt = at(24*time.Hour - time.Minute)
		},
		"lifetime over maximum": func(_ *certificatesv1.PodCertificateRequestStatus, spec *certificatesv1.PodCertificateRequestSpec) {
			spec.MaxExpirationSeconds = ptr(int32(3600))
		},
		"two terminal": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			*st = issued("Issued", "Denied")
		},
		"issued false": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.Conditions[0].Status = metav1.ConditionFalse
		},
		"denied with a chain": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.Conditions[0].Type = "Denied"
		},
		"unknown condition": func(st *certificatesv1.PodCertificateRequestStatus, _ *certificatesv1.PodCertificateRequestSpec) {
			st.Conditions[0].Type = "Ready"
		},
	}
	gvk := schema.GroupVersionKind{Group: k.gvk.Group, Version: k.gvk.Version, Kind: k.gvk.Kind}
	for name, change := range cases {
		old := base.DeepCopy()
		scratch := issued()
		change(&scratch, &old.Spec) // the spec's change only
		stored := toInternal(t, old)
		setCreateUID(stored)
		k.create.PrepareForCreate(ctxFor(k, old.Namespace, "create", ""), stored)
		setStored(stored)
		storedMap := toV1Map(t, k, stored)
		next, err := legacyscheme.Scheme.ConvertToVersion(stored.DeepCopyObject(), k.gvk.GroupVersion())
		require.NoError(t, err)
		pcr := next.(*certificatesv1.PodCertificateRequest)
		pcr.Status = issued()
		change(&pcr.Status, &certificatesv1.PodCertificateRequestSpec{})
		in := toInternal(t, pcr)
		ctx := ctxFor(k, old.Namespace, "update", "status")
		s.PrepareForUpdate(ctx, in, stored)
		refErrs, p := refUpdate(ctx, s, in, stored)
		require.Nil(t, p, name)
		got := validation.ValidateUpdate(gvk, toV1Map(t, k, in), storedMap, validation.Options{Subresource: "status", Now: pcrNow})
		assert.Equal(t, refLines(refErrs), ourLines(got), name)
		if name == "valid" {
			assert.Empty(t, refErrs, "a valid issuance")
		} else {
			assert.NotEmpty(t, refErrs, name)
		}
	}
}
