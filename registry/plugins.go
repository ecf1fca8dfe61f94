package registry

import (
	"fmt"
	"sort"
	"time"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/quantity"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// The default-on admission plugins of kube-apiserver 1.37 beyond the Pod ones
// (podadmission.go), each as far as it changes or refuses objects
// (k8s.io/kubernetes pkg/kubeapiserver/options/plugins.go gives their order and the default-on
// set; recorded: admission-plugins/*). Each reads what it needs through World, as the plugins
// read their informers' listers.

var (
	storageClassesResource = schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"}
	ingressClassesResource = schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingressclasses"}
)

// builtinMutators runs, on a create of a built-in kind's main resource, the mutating plugins
// that follow the Pod ones in AllOrderedPlugins: TaintNodesByCondition, DefaultStorageClass,
// StorageObjectInUseProtection, DefaultIngressClass and PodTopologyLabels (RuntimeClass's Admit is in
// podCreateDefaults) (each touches one kind, so their
// relative order shows only in which refusal comes first). obj is the handler's own.
func (h *handler) builtinMutators(obj map[string]any) (map[string]any, error) {
	if h.ep.crd != nil || h.ep.Subresource != "" {
		return obj, nil
	}
	switch h.ep.groupResource() {
	case status.GroupResource{Resource: "nodes"}:
		if !h.pluginDisabled("TaintNodesByCondition") {
			taintNotReady(obj)
		}
	case status.GroupResource{Resource: "persistentvolumeclaims"}:
		if err := h.defaultStorageClass(obj); err != nil {
			return nil, err
		}
	case status.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}:
		if err := h.defaultIngressClass(obj); err != nil {
			return nil, err
		}
	case status.GroupResource{Resource: "pods"}:
		// PodTopologyLabels follows DefaultIngressClass (podtopology.go).
		if err := h.podTopologyLabels(obj); err != nil {
			return nil, err
		}
	}
	return h.storageProtection(obj), nil
}

// taintNotReady is TaintNodesByCondition on a Node create (plugin/pkg/admission/nodetaint):
// the node.kubernetes.io/not-ready NoSchedule taint is appended unless a taint of that key and
// effect is there; the node lifecycle controller removes it once the Node is Ready.
func taintNotReady(obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	taints, _ := spec["taints"].([]any)
	for _, t := range taints {
		m, _ := t.(map[string]any)
		if m["key"] == "node.kubernetes.io/not-ready" && m["effect"] == "NoSchedule" {
			return
		}
	}
	spec["taints"] = append(append([]any(nil), taints...), map[string]any{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"})
}

// defaultStorageClass is DefaultStorageClass on a PersistentVolumeClaim create
// (plugin/pkg/admission/storage/storageclass/setdefault): a claim that names no class (no
// spec.storageClassName, not even "", and no volume.beta.kubernetes.io/storage-class
// annotation) gets the default StorageClass's name, when there is one.
func (h *handler) defaultStorageClass(obj map[string]any) error {
	if h.pluginDisabled("DefaultStorageClass") {
		return nil
	}
	spec, _ := obj["spec"].(map[string]any)
	if _, ok := spec["storageClassName"].(string); ok {
		return nil
	}
	if ann, _ := metaOf(obj)["annotations"].(map[string]any); ann != nil {
		if _, ok := ann["volume.beta.kubernetes.io/storage-class"]; ok {
			return nil
		}
	}
	def, err := h.defaultClass(storageClassesResource, "storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class")
	if err != nil || def == "" {
		return err
	}
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	spec["storageClassName"] = def
	return nil
}

// defaultIngressClass is DefaultIngressClass on an Ingress create
// (plugin/pkg/admission/network/defaultingressclass): an Ingress without
// spec.ingressClassName and without the kubernetes.io/ingress.class annotation gets the
// default IngressClass's name, when there is one.
func (h *handler) defaultIngressClass(obj map[string]any) error {
	if h.pluginDisabled("DefaultIngressClass") {
		return nil
	}
	spec, _ := obj["spec"].(map[string]any)
	if _, ok := spec["ingressClassName"].(string); ok {
		return nil
	}
	if ann, _ := metaOf(obj)["annotations"].(map[string]any); ann != nil {
		if _, ok := ann["kubernetes.io/ingress.class"]; ok {
			return nil
		}
	}
	def, err := h.defaultClass(ingressClassesResource, "ingressclass.kubernetes.io/is-default-class")
	if err != nil || def == "" {
		return err
	}
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	spec["ingressClassName"] = def
	return nil
}

// defaultClass returns the name of the default class of resource r: among the objects with one
// of the annotations set to "true", the newest by creationTimestamp, then the first by name
// (pkg/volume/util.GetDefaultClass and defaultingressclass.getDefaultClass sort alike); "" when
// none is.
func (h *handler) defaultClass(r schema.GroupVersionResource, annotations ...string) (string, error) {
	list, err := h.w.List(h.ctx, r, "")
	if err != nil {
		return "", worldError(err, "List("+r.Resource+")")
	}
	type class struct {
		name    string
		created time.Time
	}
	var defaults []class
	for _, o := range list {
		ann, _ := metaOf(o)["annotations"].(map[string]any)
		for _, a := range annotations {
			if ann[a] == "true" {
				ts, _ := time.Parse(time.RFC3339, metaString(o, "creationTimestamp"))
				defaults = append(defaults, class{name: metaString(o, "name"), created: ts})
				break
			}
		}
	}
	if len(defaults) == 0 {
		return "", nil
	}
	sort.Slice(defaults, func(i, j int) bool {
		if defaults[i].created.Equal(defaults[j].created) {
			return defaults[i].name < defaults[j].name
		}
		return defaults[i].created.After(defaults[j].created)
	})
	return defaults[0].name, nil
}

// builtinValidators runs the validating plugins among the default-on ones that refuse writes
// of the kinds modelled here, before the admission policies and webhooks, in their order:
// LimitRanger (limitranger.go), PodSecurity (podsecurity.go), PersistentVolumeClaimResize on
// an update, RuntimeClass on a Pod create, then the certificate plugins (certadmission.go:
// CertificateApproval, CertificateSigning, ClusterTrustBundleAttest,
// CertificateSubjectRestriction), NodeDeclaredFeatureValidator on a bound Pod's update
// (nodefeatures.go) and PodResizeValidator on its pods/resize update (podresize.go).
func (h *handler) builtinValidators(op admission.Operation, obj, old map[string]any, name string) error {
	if err := h.limitRangerValidate(op, obj, old, name); err != nil {
		return err
	}
	if err := h.podSecurity(op, obj, old, name); err != nil {
		return err
	}
	if h.ep.crd != nil || obj == nil {
		return nil
	}
	if h.ep.Subresource == "" {
		switch gr := h.ep.groupResource(); {
		case op == admission.Update && gr == status.GroupResource{Resource: "persistentvolumeclaims"} && !h.pluginDisabled("PersistentVolumeClaimResize"):
			if err := h.claimResize(obj, old); err != nil {
				return err
			}
		case op == admission.Create && gr == status.GroupResource{Resource: "pods"}:
			if err := h.runtimeClassValidate(obj); err != nil {
				return err
			}
		}
	}
	if err := h.certificateValidators(op, obj, old, name); err != nil {
		return err
	}
	if err := h.nodeFeaturesValidate(op, obj, old, name); err != nil {
		return err
	}
	return h.podResizeValidate(op, obj, old, name)
}

// claimResize is PersistentVolumeClaimResize (plugin/pkg/admission/storage/persistentvolume/
// resize): an update that grows spec.resources.requests.storage needs a Bound claim whose
// class, the same before and after, exists and has allowVolumeExpansion true.
func (h *handler) claimResize(obj, old map[string]any) error {
	size := func(o map[string]any) quantity.Quantity {
		spec, _ := o["spec"].(map[string]any)
		res, _ := spec["resources"].(map[string]any)
		req, _ := res["requests"].(map[string]any)
		s, _ := req["storage"].(string)
		q, err := quantity.Parse(s)
		if err != nil {
			return quantity.Quantity{}
		}
		return q
	}
	if size(obj).Rat().Cmp(size(old).Rat()) <= 0 {
		return nil
	}
	forbidden := func(msg string) error {
		return status.Forbidden(h.ep.groupResource(), h.ep.Name, fmt.Errorf("%s", msg))
	}
	st, _ := old["status"].(map[string]any)
	if st["phase"] != "Bound" {
		return forbidden("Only bound persistent volume claims can be expanded")
	}
	cls, oldCls := claimClass(obj), claimClass(old)
	allowed := false
	if cls != "" && cls == oldCls {
		sc, err := h.w.Get(h.ctx, storageClassesResource, "", cls)
		if err != nil {
			return worldError(err, "Get(storageclasses)")
		}
		allowed = sc != nil && sc["allowVolumeExpansion"] == true
	}
	if !allowed {
		return forbidden("only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize")
	}
	return nil
}

// claimClass is helper.GetPersistentVolumeClaimClass: the beta annotation first, then
// spec.storageClassName.
func claimClass(o map[string]any) string {
	if ann, _ := metaOf(o)["annotations"].(map[string]any); ann != nil {
		if v, ok := ann["volume.beta.kubernetes.io/storage-class"].(string); ok {
			return v
		}
	}
	spec, _ := o["spec"].(map[string]any)
	s, _ := spec["storageClassName"].(string)
	return s
}
