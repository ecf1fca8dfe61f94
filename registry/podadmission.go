package registry

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// podCreateDefaults is what five of kube-apiserver's default admission plugins add to a Pod on
// create, in the order the server runs them, before the webhooks
// (plugin/pkg/admission/limitranger, serviceaccount, priority, defaulttolerationseconds and
// runtimeclass; recorded: pod/create*, admission-plugins/ap-runtime-class, ap-limit-ranger*).
//   - LimitRanger: the namespace's LimitRanges' container defaults (limitranger.go).
//   - ServiceAccount: see serviceAccountAdmit.
//   - Priority: a Pod without priorityClassName gets the globalDefault PriorityClass's name,
//     value and preemptionPolicy, or priority 0 and PreemptLowerPriority when there is none; a
//     named class gives its value and policy, and a missing one is a 403.
//   - DefaultTolerationSeconds: NoExecute tolerations of node.kubernetes.io/not-ready and
//     unreachable for 300 seconds, unless the Pod tolerates those taints already.
//   - RuntimeClass: see runtimeClassAdmit.
//
// obj is the handler's own (a decode of the request, or what the field manager made of it,
// sharing nothing with what the world holds): the plugins change it in place, as they change
// the decoded Pod.
func (h *handler) podCreateDefaults(obj map[string]any) (map[string]any, error) {
	obj, err := h.limitRangerAdmit(admission.Create, obj, nil)
	if err != nil {
		return nil, err
	}
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return obj, nil
	}
	if err := h.serviceAccountAdmit(obj, spec); err != nil {
		return nil, err
	}
	if err := h.priorityAdmit(obj, spec); err != nil {
		return nil, err
	}
	if !h.pluginDisabled("DefaultTolerationSeconds") {
		defaultTolerations(spec)
	}
	// RuntimeClass follows in AllOrderedPlugins (after DefaultStorageClass and the storage
	// plugins, which touch no Pod).
	if err := h.runtimeClassAdmit(obj, spec); err != nil {
		return nil, err
	}
	return obj, nil
}

// priorityAdmit is the Priority plugin on a Pod create (spec is obj's, owned by the caller):
// see podCreateDefaults.
func (h *handler) priorityAdmit(obj, spec map[string]any) error {
	if h.pluginDisabled("Priority") {
		return nil
	}
	pcs, err := h.w.List(h.ctx, schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}, "")
	if err != nil {
		return worldError(err, "List")
	}
	name, _ := spec["priorityClassName"].(string)
	var class map[string]any
	for _, pc := range pcs {
		if name == "" && pc["globalDefault"] == true || name != "" && metaString(pc, "name") == name {
			class = pc
			break
		}
	}
	switch {
	case class != nil:
		if name == "" {
			spec["priorityClassName"] = metaString(class, "name")
		}
		spec["priority"] = class["value"]
		if p, ok := class["preemptionPolicy"].(string); ok {
			spec["preemptionPolicy"] = p
		}
	case name != "" && name != "system-node-critical" && name != "system-cluster-critical":
		return status.Forbidden(h.ep.groupResource(), metaString(obj, "name"), fmt.Errorf("no PriorityClass with name %s was found", name))
	case name == "":
		spec["priority"] = int64(0)
	}
	if _, ok := spec["preemptionPolicy"]; !ok {
		spec["preemptionPolicy"] = "PreemptLowerPriority"
	}
	return nil
}

// defaultTolerations is DefaultTolerationSeconds on spec (changed in place): the NoExecute
// tolerations of node.kubernetes.io/not-ready and unreachable for 300 seconds, unless the pod
// tolerates those taints already.
func defaultTolerations(spec map[string]any) {
	tols, _ := spec["tolerations"].([]any)
	for _, key := range []string{"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"} {
		if !toleratesNoExecute(tols, key) {
			tols = append(tols, map[string]any{"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": int64(300)})
		}
	}
	if len(tols) > 0 {
		spec["tolerations"] = tols
	}
}

// podUpdateDefaults is what the same plugins do on an update of a Pod (not its subresources):
// Priority keeps the stored priority and preemptionPolicy when the update has none, and
// DefaultTolerationSeconds adds its tolerations again (a PUT without them would otherwise fail
// validation for removing tolerations; recorded: crud/crud-pod/update). ServiceAccount mutates
// on create only. obj is not modified: the result is a copy where anything changes.
func (h *handler) podUpdateDefaults(obj, old map[string]any) map[string]any {
	priority, tolerations := !h.pluginDisabled("Priority"), !h.pluginDisabled("DefaultTolerationSeconds")
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil || !priority && !tolerations {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	ns := make(map[string]any, len(spec)+2)
	for k, v := range spec {
		ns[k] = v
	}
	if tols, ok := spec["tolerations"].([]any); ok {
		ns["tolerations"] = append([]any(nil), tols...)
	}
	oldSpec, _ := old["spec"].(map[string]any)
	for _, k := range []string{"priority", "preemptionPolicy"} {
		if _, set := ns[k]; priority && !set && oldSpec[k] != nil {
			ns[k] = oldSpec[k]
		}
	}
	if tolerations {
		defaultTolerations(ns)
	}
	out["spec"] = ns
	return out
}

// toleratesNoExecute reports whether a toleration tolerates the NoExecute taint key (the
// plugin's check: empty effect or NoExecute, and the key itself or an Exists with no key).
func toleratesNoExecute(tols []any, key string) bool {
	for _, t := range tols {
		m, _ := t.(map[string]any)
		effect, _ := m["effect"].(string)
		if effect != "" && effect != "NoExecute" {
			continue
		}
		k, _ := m["key"].(string)
		op, _ := m["operator"].(string)
		if k == key || k == "" && op == "Exists" {
			return true
		}
	}
	return false
}

// The ServiceAccount admission plugin's names (plugin/pkg/admission/serviceaccount).
const (
	serviceAccountVolumePrefix    = "kube-api-access-"
	serviceAccountTokenMountPath  = "/var/run/secrets/kubernetes.io/serviceaccount"
	mirrorPodAnnotation           = "kubernetes.io/config.mirror"
	enforceMountableSecretsAnnKey = "kubernetes.io/enforce-mountable-secrets"
	// boundTokenExpirationSeconds is serviceaccount.WarnOnlyBoundTokenExpirationSeconds: one
	// hour and seven seconds, the expiry the projected token volume asks for.
	boundTokenExpirationSeconds = int64(3607)
)

// serviceAccountAdmit is the ServiceAccount plugin on a Pod create (its Admit, then Validate),
// with kube-apiserver's defaults (token mounting on, mountable-secret limits only where the
// ServiceAccount's annotation asks for them). spec is obj's, owned by the caller.
//   - A mirror pod (annotation kubernetes.io/config.mirror) is not changed and may reference no
//     service account, no secret and no token projection (403).
//   - An empty serviceAccountName becomes "default" (and the deprecated serviceAccount with it);
//     the ServiceAccount must exist (403 "error looking up service account NS/NAME:
//     serviceaccount "NAME" not found").
//   - Unless automountServiceAccountToken (the Pod's, else the ServiceAccount's) is false, every
//     container and init container without a mount at /var/run/secrets/kubernetes.io/serviceaccount
//     mounts the token volume read-only there, and the volume (the Pod's first volume named
//     kube-api-access-*, or a new one with a generated name: a projected token of 3607 seconds,
//     the kube-root-ca.crt ConfigMap's ca.crt and the namespace from the downward API) is added
//     when some container needed it.
//   - A Pod without imagePullSecrets gets the ServiceAccount's.
//   - With the enforce-mountable-secrets annotation true on the ServiceAccount, secret volumes,
//     secret env references and imagePullSecrets must be among the ServiceAccount's (403).
func (h *handler) serviceAccountAdmit(obj, spec map[string]any) error {
	if h.pluginDisabled("ServiceAccount") {
		return nil
	}
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	if _, mirror := ann[mirrorPodAnnotation]; mirror {
		return h.mirrorPodCheck(obj, spec)
	}
	name, _ := spec["serviceAccountName"].(string)
	if name == "" {
		name = "default"
		spec["serviceAccountName"] = name
		spec["serviceAccount"] = name
	}
	ns := h.ep.Namespace
	sa, err := h.w.Get(h.ctx, schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, ns, name)
	if err != nil {
		return worldError(err, "Get(serviceaccounts)")
	}
	if sa == nil {
		return h.podForbidden(obj, fmt.Sprintf("error looking up service account %s/%s: serviceaccount %q not found", ns, name, name))
	}
	automount := true
	if v, ok := spec["automountServiceAccountToken"].(bool); ok {
		automount = v
	} else if v, ok := sa["automountServiceAccountToken"].(bool); ok {
		automount = v
	}
	if automount {
		h.mountServiceAccountToken(spec)
	}
	if ips, _ := spec["imagePullSecrets"].([]any); len(ips) == 0 {
		var copied []any
		for _, s := range listOfMaps(sa["imagePullSecrets"]) {
			n, _ := s["name"].(string)
			copied = append(copied, map[string]any{"name": n})
		}
		if len(copied) > 0 {
			spec["imagePullSecrets"] = copied
		}
	}
	saAnn, _ := metaOf(sa)["annotations"].(map[string]any)
	if v, ok := saAnn[enforceMountableSecretsAnnKey].(string); ok {
		if enforce, _ := strconv.ParseBool(v); enforce {
			if msg := limitSecretReferences(sa, name, spec); msg != "" {
				return h.podForbidden(obj, msg)
			}
		}
	}
	return nil
}

// podForbidden is admission.NewForbidden for the Pod being created.
func (h *handler) podForbidden(obj map[string]any, msg string) error {
	return status.Forbidden(h.ep.groupResource(), metaString(obj, "name"), errors.New(msg))
}

// mirrorPodCheck is the plugin's Validate for a mirror pod.
func (h *handler) mirrorPodCheck(obj, spec map[string]any) error {
	if n, _ := spec["serviceAccountName"].(string); n != "" {
		return h.podForbidden(obj, "a mirror pod may not reference service accounts")
	}
	if podReferencesSecrets(spec) {
		return h.podForbidden(obj, "a mirror pod may not reference secrets")
	}
	for _, v := range listOfMaps(spec["volumes"]) {
		proj, _ := v["projected"].(map[string]any)
		for _, src := range listOfMaps(proj["sources"]) {
			if _, ok := src["serviceAccountToken"].(map[string]any); ok {
				return h.podForbidden(obj, "a mirror pod may not use ServiceAccountToken volume projections")
			}
		}
	}
	return nil
}

// mountServiceAccountToken is the plugin's mountServiceAccountToken over spec.
func (h *handler) mountServiceAccountToken(spec map[string]any) {
	volumes := listOfMaps(spec["volumes"])
	volName := ""
	for _, v := range volumes {
		if n, _ := v["name"].(string); strings.HasPrefix(n, serviceAccountVolumePrefix) {
			volName = n
			break
		}
	}
	hasVolume := volName != ""
	if !hasVolume {
		volName = h.w.GenerateName(serviceAccountVolumePrefix)
	}
	needed := false
	for _, key := range []string{"initContainers", "containers"} {
		for _, c := range listOfMaps(spec[key]) {
			mounts, _ := c["volumeMounts"].([]any)
			mounted := false
			for _, m := range listOfMaps(mounts) {
				if p, _ := m["mountPath"].(string); p == serviceAccountTokenMountPath {
					mounted = true
					break
				}
			}
			if !mounted {
				c["volumeMounts"] = append(mounts, map[string]any{"name": volName, "readOnly": true, "mountPath": serviceAccountTokenMountPath})
				needed = true
			}
		}
	}
	if !hasVolume && needed {
		vols, _ := spec["volumes"].([]any)
		spec["volumes"] = append(vols, map[string]any{"name": volName, "projected": tokenVolumeSource()})
	}
}

// tokenVolumeSource is the plugin's TokenVolumeSource, with the default mode set explicitly.
func tokenVolumeSource() map[string]any {
	return map[string]any{
		"defaultMode": int64(0o644),
		"sources": []any{
			map[string]any{"serviceAccountToken": map[string]any{"path": "token", "expirationSeconds": boundTokenExpirationSeconds}},
			map[string]any{"configMap": map[string]any{"name": "kube-root-ca.crt", "items": []any{map[string]any{"key": "ca.crt", "path": "ca.crt"}}}},
			map[string]any{"downwardAPI": map[string]any{"items": []any{map[string]any{"path": "namespace",
				"fieldRef": map[string]any{"apiVersion": "v1", "fieldPath": "metadata.namespace"}}}}},
		},
	}
}

// limitSecretReferences is the plugin's check that every secret the Pod references is one of
// the ServiceAccount's (volumes, then init containers' and containers' env and envFrom, then
// imagePullSecrets); it returns the refusal's message, or "".
func limitSecretReferences(sa map[string]any, saName string, spec map[string]any) string {
	mountable := map[string]bool{}
	for _, s := range listOfMaps(sa["secrets"]) {
		n, _ := s["name"].(string)
		mountable[n] = true
	}
	for _, v := range listOfMaps(spec["volumes"]) {
		sec, ok := v["secret"].(map[string]any)
		if !ok {
			continue
		}
		n, _ := sec["secretName"].(string)
		if !mountable[n] {
			return fmt.Sprintf("volume with secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", n, saName)
		}
	}
	for _, key := range []string{"initContainers", "containers"} {
		what := "container"
		if key == "initContainers" {
			what = "init container"
		}
		for _, c := range listOfMaps(spec[key]) {
			cname, _ := c["name"].(string)
			for _, env := range listOfMaps(c["env"]) {
				vf, _ := env["valueFrom"].(map[string]any)
				ref, ok := vf["secretKeyRef"].(map[string]any)
				if !ok {
					continue
				}
				n, _ := ref["name"].(string)
				if !mountable[n] {
					en, _ := env["name"].(string)
					return fmt.Sprintf("%s %s with envVar %s referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", what, cname, en, n, saName)
				}
			}
			for _, ef := range listOfMaps(c["envFrom"]) {
				ref, ok := ef["secretRef"].(map[string]any)
				if !ok {
					continue
				}
				n, _ := ref["name"].(string)
				if !mountable[n] {
					return fmt.Sprintf("%s %s with envFrom referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", what, cname, n, saName)
				}
			}
		}
	}
	pull := map[string]bool{}
	for _, s := range listOfMaps(sa["imagePullSecrets"]) {
		n, _ := s["name"].(string)
		pull[n] = true
	}
	for i, s := range listOfMaps(spec["imagePullSecrets"]) {
		n, _ := s["name"].(string)
		if !pull[n] {
			return fmt.Sprintf("imagePullSecrets[%d].name=\"%s\" is not allowed because service account %s does not reference that imagePullSecret", i, n, saName)
		}
	}
	return ""
}

// podReferencesSecrets reports whether the Pod names any secret (podutil.VisitPodSecretNames
// over every container kind: imagePullSecrets, env and envFrom, and the volume sources that
// name secrets).
func podReferencesSecrets(spec map[string]any) bool {
	if len(listOfMaps(spec["imagePullSecrets"])) > 0 {
		return true
	}
	for _, key := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, c := range listOfMaps(spec[key]) {
			for _, ef := range listOfMaps(c["envFrom"]) {
				if ref, ok := ef["secretRef"].(map[string]any); ok && ref["name"] != "" {
					return true
				}
			}
			for _, env := range listOfMaps(c["env"]) {
				vf, _ := env["valueFrom"].(map[string]any)
				if ref, ok := vf["secretKeyRef"].(map[string]any); ok && ref["name"] != "" {
					return true
				}
			}
		}
	}
	for _, v := range listOfMaps(spec["volumes"]) {
		for src, nameKey := range secretVolumeSources {
			m, ok := v[src].(map[string]any)
			if !ok {
				continue
			}
			if src == "projected" {
				for _, p := range listOfMaps(m["sources"]) {
					if sec, ok := p["secret"].(map[string]any); ok && sec["name"] != "" {
						return true
					}
				}
				continue
			}
			if n, _ := m[nameKey].(string); n != "" {
				return true
			}
			if ref, ok := m["secretRef"].(map[string]any); ok && ref["name"] != "" {
				return true
			}
			for _, k := range []string{"nodePublishSecretRef", "controllerPublishSecretRef", "nodeStageSecretRef", "nodeExpandSecretRef"} {
				if ref, ok := m[k].(map[string]any); ok && ref["name"] != "" {
					return true
				}
			}
		}
	}
	return false
}

// secretVolumeSources are the volume sources that can name a secret, with the key of the
// secret's name where it is not a secretRef.
var secretVolumeSources = map[string]string{
	"secret": "secretName", "azureFile": "secretName", "projected": "",
	"cephfs": "", "cinder": "", "flexVolume": "", "iscsi": "", "rbd": "", "scaleIO": "",
	"storageos": "", "csi": "",
}

// listOfMaps is the maps of a list value, skipping anything else.
func listOfMaps(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
