package schema

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Warning returns the warning the apiserver adds to every request served through this version:
// its deprecationWarning, or for a deprecated version without one the generic text
// "<group>/<version> <Kind> is deprecated", followed by "; use <group>/<newer> <Kind>" naming the
// newest served, non-deprecated version newer than it (apiextensions' customresource_handler).
// It is "" for a version that is not deprecated.
func (v *Version) Warning() string {
	if v == nil || !v.Deprecated {
		return ""
	}
	if v.DeprecationWarning != nil {
		return *v.DeprecationWarning
	}
	g, kind := v.crd.Group, v.crd.Names.Kind
	msg := fmt.Sprintf("%s/%s %s is deprecated", g, v.Name, kind)
	var newer []string
	for _, o := range v.crd.Versions {
		if o.Served && !o.Deprecated && CompareVersions(v.Name, o.Name) < 0 {
			newer = append(newer, o.Name)
		}
	}
	if len(newer) > 0 {
		sort.SliceStable(newer, func(i, j int) bool { return CompareVersions(newer[i], newer[j]) > 0 })
		msg += fmt.Sprintf("; use %s/%s %s", g, newer[0], kind)
	}
	return msg
}

var kubeVersion = regexp.MustCompile(`^v([\d]+)(?:(alpha|beta)([\d]+))?$`)

func parseKubeVersion(v string) (major, typ, minor int, ok bool) {
	m := kubeVersion.FindStringSubmatch(v)
	if m == nil {
		return 0, 0, 0, false
	}
	switch m[2] {
	case "alpha":
		typ = 0
	case "beta":
		typ = 1
	default:
		typ = 2
	}
	var err error
	if major, err = strconv.Atoi(m[1]); err != nil {
		return 0, 0, 0, false
	}
	if typ != 2 {
		if minor, err = strconv.Atoi(m[3]); err != nil {
			return 0, 0, 0, false
		}
	}
	return major, typ, minor, true
}

// CompareVersions orders version names as Kubernetes does (apimachinery's
// CompareKubeAwareVersionStrings): GA > beta > alpha, then by major and minor number; names
// that do not look like Kubernetes versions sort below those that do, in reverse lexical order.
// The result is negative, zero or positive.
func CompareVersions(a, b string) int {
	if a == b {
		return 0
	}
	am, at, an, aok := parseKubeVersion(a)
	bm, bt, bn, bok := parseKubeVersion(b)
	switch {
	case !aok && !bok:
		return strings.Compare(b, a)
	case !aok:
		return -1
	case !bok:
		return 1
	}
	if at != bt {
		return at - bt
	}
	if am != bm {
		return am - bm
	}
	return an - bn
}

// builtinDeprecation is a built-in version's API lifecycle (k8s.io/api v0.37.2's
// APILifecycleDeprecated, APILifecycleRemoved and APILifecycleReplacement, in lifecycle.go and
// zz_generated.prerelease-lifecycle.go), for the versions deprecated by 1.37.
type builtinDeprecation struct {
	deprecated, removed string // "1.33"; removed "" when none is set
	replacement         GroupVersionKind
}

var builtinDeprecations = map[GroupVersionKind]builtinDeprecation{
	{Version: "v1", Kind: "ComponentStatus"}: {deprecated: "1.19"},
	{Version: "v1", Kind: "Endpoints"}:       {deprecated: "1.33", replacement: GroupVersionKind{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"}},
	{Group: "admissionregistration.k8s.io", Version: "v1alpha1", Kind: "MutatingAdmissionPolicy"}:        {deprecated: "1.35", removed: "1.38"},
	{Group: "admissionregistration.k8s.io", Version: "v1alpha1", Kind: "MutatingAdmissionPolicyBinding"}: {deprecated: "1.35", removed: "1.38"},
	{Group: "admissionregistration.k8s.io", Version: "v1beta1", Kind: "MutatingAdmissionPolicy"}: {deprecated: "1.37", removed: "1.40",
		replacement: GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicy"}},
	{Group: "admissionregistration.k8s.io", Version: "v1beta1", Kind: "MutatingAdmissionPolicyBinding"}: {deprecated: "1.37", removed: "1.40",
		replacement: GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicyBinding"}},
	{Group: "certificates.k8s.io", Version: "v1beta1", Kind: "ClusterTrustBundle"}: {deprecated: "1.37", removed: "1.40",
		replacement: GroupVersionKind{Group: "certificates.k8s.io", Version: "v1", Kind: "ClusterTrustBundle"}},
	{Group: "certificates.k8s.io", Version: "v1beta1", Kind: "PodCertificateRequest"}: {deprecated: "1.37", removed: "1.40",
		replacement: GroupVersionKind{Group: "certificates.k8s.io", Version: "v1", Kind: "PodCertificateRequest"}},
	{Group: "coordination.k8s.io", Version: "v1alpha2", Kind: "LeaseCandidate"}:   {deprecated: "1.35", removed: "1.38"},
	{Group: "coordination.k8s.io", Version: "v1beta1", Kind: "LeaseCandidate"}:    {deprecated: "1.36", removed: "1.39"},
	{Group: "resource.k8s.io", Version: "v1alpha3", Kind: "DeviceTaintRule"}:      {deprecated: "1.36", removed: "1.39"},
	{Group: "resource.k8s.io", Version: "v1beta1", Kind: "DeviceClass"}:           {deprecated: "1.35", removed: "1.38"},
	{Group: "resource.k8s.io", Version: "v1beta1", Kind: "ResourceClaim"}:         {deprecated: "1.35", removed: "1.38"},
	{Group: "resource.k8s.io", Version: "v1beta1", Kind: "ResourceClaimTemplate"}: {deprecated: "1.35", removed: "1.38"},
	{Group: "resource.k8s.io", Version: "v1beta1", Kind: "ResourceSlice"}:         {deprecated: "1.35", removed: "1.38"},
	{Group: "resource.k8s.io", Version: "v1beta2", Kind: "DeviceClass"}:           {deprecated: "1.36", removed: "1.39"},
	{Group: "resource.k8s.io", Version: "v1beta2", Kind: "ResourceClaim"}:         {deprecated: "1.36", removed: "1.39"},
	{Group: "resource.k8s.io", Version: "v1beta2", Kind: "ResourceClaimTemplate"}: {deprecated: "1.36", removed: "1.39"},
	{Group: "resource.k8s.io", Version: "v1beta2", Kind: "ResourceSlice"}:         {deprecated: "1.36", removed: "1.39"},
	{Group: "storagemigration.k8s.io", Version: "v1beta1", Kind: "StorageVersionMigration"}: {deprecated: "1.37", removed: "1.40",
		replacement: GroupVersionKind{Group: "storagemigration.k8s.io", Version: "v1", Kind: "StorageVersionMigration"}},
}

// BuiltinDeprecationWarning is the warning kube-apiserver 1.37 adds to every request to a
// built-in kind's deprecated version (apiserver's endpoints/deprecation WarningMessage, added
// before the handler runs): "<apiVersion> <Kind> is deprecated in v<major.minor>+", then
// ", unavailable in v<major.minor>+" and "; use <apiVersion> <Kind>" when the version says
// them; "" for a version not deprecated by 1.37.
func BuiltinDeprecationWarning(gvk GroupVersionKind) string {
	d, ok := builtinDeprecations[gvk]
	if !ok {
		return ""
	}
	msg := fmt.Sprintf("%s %s is deprecated in v%s+", gvk.GroupVersion().String(), gvk.Kind, d.deprecated)
	if d.removed != "" {
		msg += fmt.Sprintf(", unavailable in v%s+", d.removed)
	}
	if d.replacement.Kind != "" {
		msg += fmt.Sprintf("; use %s %s", d.replacement.GroupVersion().String(), d.replacement.Kind)
	}
	return msg
}
