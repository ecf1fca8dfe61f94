package validation

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// The pod spec warnings (pkg/api/pod warningsForPodSpecAndMeta): deprecated node labels,
// annotations and volume sources, overlapping volume paths, duplicate host aliases, pull
// secrets, env vars and ports, fractional byte quantities, null label selectors,
// non-canonical IPv6 addresses.

// PodTemplateWarnings is GetWarningsForPodTemplate: the warnings for the pod template tmpl at
// path (spec.template in a workload, template in a PodTemplate). old is the stored template
// (nil on create); neither is modified.
func PodTemplateWarnings(path field.Path, tmpl, old map[string]any) []string {
	return podSpecWarnings(&path, mapOf(tmpl["spec"]), mapOf(tmpl["metadata"]))
}

var deprecatedNodeLabels = map[string]string{
	`beta.kubernetes.io/arch`:                       `deprecated since v1.14; use "kubernetes.io/arch" instead`,
	`beta.kubernetes.io/os`:                         `deprecated since v1.14; use "kubernetes.io/os" instead`,
	`failure-domain.beta.kubernetes.io/region`:      `deprecated since v1.17; use "topology.kubernetes.io/region" instead`,
	`failure-domain.beta.kubernetes.io/zone`:        `deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
	`beta.kubernetes.io/instance-type`:              `deprecated since v1.17; use "node.kubernetes.io/instance-type" instead`,
	`app.kubernetes.io/created-by`:                  `deprecated since v1.9`,
	`scheduler.alpha.kubernetes.io/preferAvoidPods`: `deprecated since v1.22; use Taints and Tolerations instead`,
	`node-role.kubernetes.io/master`:                `use "node-role.kubernetes.io/control-plane" instead`,
}

var deprecatedPodAnnotations = []struct{ key, message string }{
	{`scheduler.alpha.kubernetes.io/critical-pod`, `non-functional in v1.16+; use the "priorityClassName" field instead`},
	{`security.alpha.kubernetes.io/sysctls`, `non-functional in v1.11+; use the "sysctls" field instead`},
	{`security.alpha.kubernetes.io/unsafe-sysctls`, `non-functional in v1.11+; use the "sysctls" field instead`},
}

var deprecatedVolumes = []struct{ key, pathName, message string }{
	{"photonPersistentDisk", "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
	{"gitRepo", "gitRepo", "deprecated in v1.11, and disabled by default in v1.33+"},
	{"scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
	{"flocker", "flocker", "deprecated in v1.22, non-functional in v1.25+"},
	{"storageos", "storageOS", "deprecated in v1.22, non-functional in v1.25+"},
	{"quobyte", "quobyte", "deprecated in v1.22, non-functional in v1.25+"},
	{"glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
	{"", "", ""}, // ephemeral: the claim template's warnings (not modelled)
	{"cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"},
	{"rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"},
}

// child is fieldPath.Child on a possibly nil *field.Path, as apimachinery's nil path works.
func child(base *field.Path, names ...string) field.Path {
	if base == nil {
		return field.NewPath(names[0], names[1:]...)
	}
	return base.Child(names[0], names[1:]...)
}

func podSpecWarnings(base *field.Path, spec, meta map[string]any) []string {
	var w []string
	for _, k := range sortedKeys(mapOf(spec["nodeSelector"])) {
		if msg, ok := deprecatedNodeLabels[k]; ok {
			w = append(w, fmt.Sprintf("%s: %s", child(base, "spec", "nodeSelector").Key(k), msg))
		}
	}
	if na, ok := mapOf(spec["affinity"])["nodeAffinity"].(map[string]any); ok {
		if req, ok := na["requiredDuringSchedulingIgnoredDuringExecution"].(map[string]any); ok {
			tp := child(base, "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
			for i, t := range listOf(req["nodeSelectorTerms"]) {
				w = append(w, nodeSelectorTermWarnings(tp.Index(i), mapOf(t), false)...)
			}
		}
		pp := child(base, "spec", "affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
		for i, t := range listOf(na["preferredDuringSchedulingIgnoredDuringExecution"]) {
			w = append(w, nodeSelectorTermWarnings(pp.Index(i).Child("preference"), mapOf(mapOf(t)["preference"]), true)...)
		}
	}
	for i, raw := range listOf(spec["topologySpreadConstraints"]) {
		t := mapOf(raw)
		tp := child(base, "spec", "topologySpreadConstraints").Index(i)
		if msg, ok := deprecatedNodeLabels[str(t, "topologyKey")]; ok {
			w = append(w, fmt.Sprintf("%s: %s is %s", tp.Child("topologyKey"), str(t, "topologyKey"), msg))
		}
		if !has(t, "labelSelector") {
			w = append(w, fmt.Sprintf("%s: a null labelSelector results in matching no pod", tp.Child("labelSelector")))
		}
	}
	annotations := mapOf(meta["annotations"])
	for _, d := range deprecatedPodAnnotations {
		if _, ok := annotations[d.key]; ok {
			w = append(w, fmt.Sprintf("%s: %s", child(base, "metadata", "annotations").Key(d.key), d.message))
		}
	}
	for i, raw := range listOf(spec["volumes"]) {
		v := mapOf(raw)
		for _, d := range deprecatedVolumes {
			if d.key != "" && has(v, d.key) {
				w = append(w, fmt.Sprintf("%s: %s", child(base, "spec", "volumes").Index(i).Child(d.pathName), d.message))
			}
		}
	}
	w = append(w, overlappingPathWarnings(listOf(spec["volumes"]))...)
	if ha := listOf(spec["hostAliases"]); len(ha) > 1 {
		seen := map[string]bool{}
		for i, a := range ha {
			ip := str(mapOf(a), "ip")
			if seen[ip] {
				w = append(w, fmt.Sprintf("%s: duplicate ip %q", child(base, "spec", "hostAliases").Index(i).Child("ip"), ip))
			} else {
				seen[ip] = true
			}
		}
	}
	ips := listOf(spec["imagePullSecrets"])
	if len(ips) > 1 {
		seen := map[string]bool{}
		for i, s := range ips {
			n := str(mapOf(s), "name")
			if seen[n] {
				w = append(w, fmt.Sprintf("%s: duplicate name %q", child(base, "spec", "imagePullSecrets").Index(i).Child("name"), n))
			} else {
				seen[n] = true
			}
		}
	}
	for i, s := range ips {
		if n := str(mapOf(s), "name"); n == "" {
			w = append(w, fmt.Sprintf("%s: invalid empty name %q", child(base, "spec", "imagePullSecrets").Index(i).Child("name"), n))
		}
	}
	oh := mapOf(spec["overhead"])
	for _, r := range []string{"memory", "ephemeral-storage"} {
		if q, ok := qty(oh[r]); ok && has(oh, r) && q.ScaledValue(-3)%1000 != 0 {
			w = append(w, fmt.Sprintf("%s: fractional byte value %q is invalid, must be an integer", child(base, "spec", "overhead").Key(r), q.String()))
		}
	}
	_, podSeccomp := mapOf(spec["securityContext"])["seccompProfile"].(map[string]any)
	if _, ok := annotations["seccomp.security.alpha.kubernetes.io/pod"]; ok && !podSeccomp {
		w = append(w, fmt.Sprintf(`%s: non-functional in v1.27+; use the "seccompProfile" field instead`, child(base, "metadata", "annotations").Key("seccomp.security.alpha.kubernetes.io/pod")))
	}
	podAppArmor, _ := mapOf(spec["securityContext"])["appArmorProfile"].(map[string]any)
	specPath := child(base, "spec")
	visitContainers(specPath, spec, func(cp field.Path, c map[string]any) {
		name := str(c, "name")
		sc := mapOf(c["securityContext"])
		if _, ok := sc["seccompProfile"].(map[string]any); !ok {
			key := "container.seccomp.security.alpha.kubernetes.io/" + name
			if _, ok := annotations[key]; ok {
				w = append(w, fmt.Sprintf(`%s: non-functional in v1.27+; use the "seccompProfile" field instead`, child(base, "metadata", "annotations").Key(key)))
			}
		}
		if _, hasField := sc["appArmorProfile"].(map[string]any); base != nil && !hasField {
			key := "container.apparmor.security.beta.kubernetes.io/" + name
			if a, ok := annotations[key].(string); ok {
				if podAppArmor == nil || !sameAppArmor(podAppArmor, a) {
					w = append(w, fmt.Sprintf(`%s: deprecated since v1.30; use the "appArmorProfile" field instead`, child(base, "metadata", "annotations").Key(key)))
				}
			}
		}
		res := mapOf(c["resources"])
		for _, r := range []string{"memory", "ephemeral-storage"} {
			for _, kind := range []string{"limits", "requests"} {
				l := mapOf(res[kind])
				if q, ok := qty(l[r]); ok && has(l, r) && q.ScaledValue(-3)%1000 != 0 {
					w = append(w, fmt.Sprintf("%s: fractional byte value %q is invalid, must be an integer", cp.Child("resources", kind).Key(r), q.String()))
				}
			}
		}
		if env := listOf(c["env"]); len(env) > 1 {
			seen := map[string]bool{}
			for i, raw := range env {
				e := mapOf(raw)
				n := str(e, "name")
				if !seen[n] {
					seen[n] = true
					continue
				}
				ref := fmt.Sprintf("$(%s)", n)
				val := str(e, "value")
				if has(e, "valueFrom") || val == ref || !strings.Contains(val, ref) {
					w = append(w, fmt.Sprintf("%s: hides previous definition of %q, which may be dropped when using apply", cp.Child("env").Index(i), n))
				}
			}
		}
	})
	w = append(w, portWarnings(specPath, spec)...)
	if g, ok := integer(spec, "terminationGracePeriodSeconds"); ok && g < 0 {
		w = append(w, fmt.Sprintf("%s: must be >= 0; negative values are invalid and will be treated as 1", child(base, "spec", "terminationGracePeriodSeconds")))
	}
	aff := mapOf(spec["affinity"])
	for _, key := range []string{"podAffinity", "podAntiAffinity"} {
		pa, ok := aff[key].(map[string]any)
		if !ok {
			continue
		}
		rp := child(base, "spec", "affinity", key, "requiredDuringSchedulingIgnoredDuringExecution")
		for i, t := range listOf(pa["requiredDuringSchedulingIgnoredDuringExecution"]) {
			if !has(mapOf(t), "labelSelector") {
				w = append(w, fmt.Sprintf("%s: a null labelSelector results in matching no pod", rp.Index(i).Child("labelSelector")))
			}
		}
		pp := child(base, "spec", "affinity", key, "preferredDuringSchedulingIgnoredDuringExecution")
		for i, t := range listOf(pa["preferredDuringSchedulingIgnoredDuringExecution"]) {
			if !has(mapOf(mapOf(t)["podAffinityTerm"]), "labelSelector") {
				w = append(w, fmt.Sprintf("%s: a null labelSelector results in matching no pod", pp.Index(i).Child("podAffinityTerm", "labelSelector")))
			}
		}
	}
	for i, ns := range stringList(mapOf(spec["dnsConfig"])["nameservers"]) {
		w = append(w, ipWarnings(child(base, "spec", "dnsConfig", "nameservers").Index(i), ns)...)
	}
	for i, a := range listOf(spec["hostAliases"]) {
		w = append(w, ipWarnings(child(base, "spec", "hostAliases").Index(i).Child("ip"), str(mapOf(a), "ip"))...)
	}
	return w
}

// sameAppArmor compares the pod's AppArmor profile with the one an annotation names
// (ApparmorFieldForAnnotation).
func sameAppArmor(field map[string]any, annotation string) bool {
	var t, lp string
	switch {
	case annotation == "unconfined":
		t = "Unconfined"
	case annotation == "runtime/default":
		t = "RuntimeDefault"
	case strings.HasPrefix(annotation, "localhost/"):
		t, lp = "Localhost", strings.TrimPrefix(annotation, "localhost/")
	default:
		return false
	}
	got, set := field["localhostProfile"].(string)
	return str(field, "type") == t && (t != "Localhost" && !set || t == "Localhost" && set && got == lp)
}

func nodeSelectorTermWarnings(p field.Path, term map[string]any, checkValues bool) []string {
	var w []string
	for i, raw := range listOf(term["matchExpressions"]) {
		e := mapOf(raw)
		key := str(e, "key")
		if msg, ok := deprecatedNodeLabels[key]; ok {
			w = append(w, fmt.Sprintf("%s: %s is %s", p.Child("matchExpressions").Index(i).Child("key"), key, msg))
		}
		if checkValues {
			for j, v := range stringList(e["values"]) {
				for _, m := range ivalidation.IsValidLabelValue(v) {
					w = append(w, fmt.Sprintf("%s: %s is invalid, %s", p.Child("matchExpressions").Index(i).Child("values").Index(j), v, m))
				}
			}
		}
	}
	return w
}

// portWarnings are the hostIP, duplicate, overlapping and ambiguous port warnings and the
// duplicate port names.
func portWarnings(specPath field.Path, spec map[string]any) []string {
	type block struct {
		path     field.Path
		hostIP   string
		hostPort int64
	}
	var w []string
	all := map[string][]block{}
	visitContainers(specPath, spec, func(cp field.Path, c map[string]any) {
		for i, raw := range listOf(c["ports"]) {
			pt := mapOf(raw)
			pp := cp.Child("ports").Index(i)
			hip, proto, name := str(pt, "hostIP"), str(pt, "protocol"), str(pt, "name")
			hp, _ := integer(pt, "hostPort")
			cport, _ := integer(pt, "containerPort")
			if hip != "" && hp == 0 {
				w = append(w, fmt.Sprintf("%s: hostIP set without hostPort: {Name:%s HostPort:%d ContainerPort:%d Protocol:%s HostIP:%s}", pp, name, hp, cport, proto, hip))
			}
			k := fmt.Sprintf("%d/%s", cport, proto)
			for _, o := range all[k] {
				switch a, b := hip == "", o.hostIP == ""; {
				case hip == o.hostIP && hp == o.hostPort:
					w = append(w, fmt.Sprintf("%s: duplicate port definition with %s", pp, o.path))
				case hp == 0 || o.hostPort == 0:
					w = append(w, fmt.Sprintf("%s: overlapping port definition with %s", pp, o.path))
				case hp == o.hostPort && (a || b) && !(a && b):
					w = append(w, fmt.Sprintf("%s: dangerously ambiguous port definition with %s", pp, o.path))
				}
			}
			all[k] = append(all[k], block{pp, hip, hp})
		}
	})
	names := map[string]field.Path{}
	visitContainers(specPath, spec, func(cp field.Path, c map[string]any) {
		for i, raw := range listOf(c["ports"]) {
			n := str(mapOf(raw), "name")
			if n == "" {
				continue
			}
			if o, ok := names[n]; ok {
				w = append(w, fmt.Sprintf("%s: duplicate port name %q with %s, services and probes that select ports by name will use %s", cp.Child("ports").Index(i), n, o, o))
			} else {
				names[n] = cp.Child("ports").Index(i)
			}
		}
	})
	return w
}

type pathAndSource struct{ path, source string }

func (ps pathAndSource) String() string {
	if ps.source != "" {
		return fmt.Sprintf("%q (%s)", ps.path, ps.source)
	}
	return fmt.Sprintf("%q", ps.path)
}

// overlappingPathWarnings is warningsForOverlappingVirtualPaths.
func overlappingPathWarnings(vols []any) []string {
	var w []string
	warn := func(name, desc, body string) string {
		return fmt.Sprintf("volume %q (%s): overlapping paths: %s", name, desc, body)
	}
	items := func(l []any, source string) []pathAndSource {
		out := make([]pathAndSource, 0, len(l))
		for _, it := range l {
			out = append(out, pathAndSource{str(mapOf(it), "path"), source})
		}
		return out
	}
	for _, raw := range vols {
		v := mapOf(raw)
		name := str(v, "name")
		if cm, ok := v["configMap"].(map[string]any); ok && cm["items"] != nil {
			for _, ol := range mappingOverlaps(items(listOf(cm["items"]), "")) {
				w = append(w, warn(name, fmt.Sprintf("ConfigMap %q", str(cm, "name")), ol))
			}
		}
		if s, ok := v["secret"].(map[string]any); ok && s["items"] != nil {
			for _, ol := range mappingOverlaps(items(listOf(s["items"]), "")) {
				w = append(w, warn(name, fmt.Sprintf("Secret %q", str(s, "secretName")), ol))
			}
		}
		if d, ok := v["downwardAPI"].(map[string]any); ok && d["items"] != nil {
			for _, ol := range mappingOverlaps(items(listOf(d["items"]), "")) {
				w = append(w, warn(name, "DownwardAPI", ol))
			}
		}
		proj, ok := v["projected"].(map[string]any)
		if !ok {
			continue
		}
		var all []pathAndSource
		for _, sraw := range listOf(proj["sources"]) {
			src := mapOf(sraw)
			// VolumeProjection's fields are all pointers: a source is empty only when it sets
			// none of them ({"configMap": {}} is a ConfigMap projection).
			if !anySet(src) {
				w = append(w, fmt.Sprintf("volume %q (Projected) has no sources provided", name))
				continue
			}
			var paths []pathAndSource
			switch {
			case has(src, "configMap") && mapOf(src["configMap"])["items"] != nil:
				paths = items(listOf(mapOf(src["configMap"])["items"]), fmt.Sprintf("ConfigMap %q", str(mapOf(src["configMap"]), "name")))
			case has(src, "secret") && mapOf(src["secret"])["items"] != nil:
				paths = items(listOf(mapOf(src["secret"])["items"]), fmt.Sprintf("Secret %q", str(mapOf(src["secret"]), "name")))
			case has(src, "downwardAPI") && mapOf(src["downwardAPI"])["items"] != nil:
				paths = items(listOf(mapOf(src["downwardAPI"])["items"]), "DownwardAPI")
			case has(src, "serviceAccountToken"):
				paths = []pathAndSource{{str(mapOf(src["serviceAccountToken"]), "path"), "ServiceAccountToken"}}
			case has(src, "clusterTrustBundle"):
				ctb := mapOf(src["clusterTrustBundle"])
				n, ok := ctb["name"].(string)
				if !ok {
					n = str(ctb, "signerName")
				}
				paths = []pathAndSource{{str(ctb, "path"), fmt.Sprintf("ClusterTrustBundle %q", n)}}
			case has(src, "podCertificate"):
				pcs := mapOf(src["podCertificate"])
				for _, f := range []struct{ key, desc string }{{"certificateChainPath", "PodCertificate chain"}, {"keyPath", "PodCertificate key"}, {"credentialBundlePath", "PodCertificate credential bundle"}} {
					if p := str(pcs, f.key); p != "" {
						paths = append(paths, pathAndSource{p, f.desc})
					}
				}
			}
			for _, ps := range paths {
				ps.path = strings.TrimRight(ps.path, "/")
				for _, c := range overlaps(all, ps) {
					w = append(w, warn(name, "Projected", fmt.Sprintf("%s with %s", ps, c)))
				}
				all = append(all, ps)
			}
		}
	}
	return w
}

func mappingOverlaps(paths []pathAndSource) []string {
	var w []string
	var all []pathAndSource
	for _, ps := range paths {
		ps.path = strings.TrimRight(ps.path, "/")
		for _, c := range overlaps(all, ps) {
			w = append(w, fmt.Sprintf("%s with %s", ps, c))
		}
		all = append(all, ps)
	}
	return w
}

// overlaps is checkForOverlap.
func overlaps(haystack []pathAndSource, needle pathAndSource) []pathAndSource {
	if needle.path == "" {
		return nil
	}
	var out []pathAndSource
	for _, it := range haystack {
		switch {
		case it.path == "":
		case it == needle,
			strings.HasPrefix(it.path+"/", needle.path+"/"),
			strings.HasPrefix(needle.path+"/", it.path+"/"):
			out = append(out, it)
		}
	}
	return out
}

// anySet reports whether m holds a non-null value (a Go struct whose fields are all pointers is
// zero exactly when none is set).
func anySet(m map[string]any) bool {
	for _, v := range m {
		if v != nil {
			return true
		}
	}
	return false
}
