package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// phases are the mutating and validating admission phases of one request: the configuration
// objects split by phase, each compiled into a chain that runs only that phase.
type phases struct {
	mutating, validating *admission.Chain
}

// noWebhooks is the webhook client of a world that gives none.
type noWebhooks struct{}

func (noWebhooks) Call(ctx context.Context, t admission.WebhookTarget, body []byte) ([]byte, error) {
	return nil, errors.New("no webhook client configured")
}

// configurationPlugins are the admission plugins that run the configuration objects, by kind:
// a disabled plugin's objects are not compiled.
var configurationPlugins = map[string]string{
	"MutatingAdmissionPolicy": "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding": "MutatingAdmissionPolicy",
	"MutatingWebhookConfiguration":     "MutatingAdmissionWebhook",
	"ValidatingAdmissionPolicy":        "ValidatingAdmissionPolicy",
	"ValidatingAdmissionPolicyBinding": "ValidatingAdmissionPolicy",
	"ValidatingWebhookConfiguration":   "ValidatingAdmissionWebhook",
}

// admissionPhases compiles the world's admission configuration, once per request.
func (h *handler) admissionPhases() (*phases, error) {
	if h.phases != nil {
		return h.phases, nil
	}
	cfg, err := h.w.Admission(h.ctx)
	if err != nil {
		return nil, worldError(err, "Admission")
	}
	var mut, val []map[string]any
	for _, o := range cfg.Objects {
		k, _ := o["kind"].(string)
		if p, ok := configurationPlugins[k]; ok && h.pluginDisabled(p) {
			continue
		}
		switch k {
		case "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "MutatingWebhookConfiguration":
			mut = append(mut, o)
		default:
			val = append(val, o)
		}
	}
	p := &phases{}
	if len(mut)+len(val) > 0 {
		nss, err := h.w.List(h.ctx, schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "")
		if err != nil {
			return nil, worldError(err, "List(namespaces)")
		}
		client := cfg.Client
		if client == nil {
			client = noWebhooks{}
		}
		base := admission.Config{Params: cfg.Params, Namespaces: nss, Client: client, Authorizer: cfg.Authorizer,
			Env: admission.Env{Now: h.req.Now, ReviewUID: h.w.NewUID}}
		if h.ep.crd != nil {
			base.Versions.CRDs = []*schema.CRD{h.ep.crd}
		}
		// matchPolicy Equivalent converts as the apiserver does: a custom resource by its CRD's
		// strategy (the conversion webhook when the world gives its converter).
		conv := conversion.Builtin{CRDs: base.Versions.CRDs}
		if c, _ := h.crConverter(); c != nil {
			conv.Custom = append(conv.Custom, c)
		}
		if h.ep.crd != nil {
			for _, c := range cfg.Converters {
				if s := c.CRD().Schema; s != nil && s.Name == h.ep.crd.Name {
					conv.Custom = append(conv.Custom, c)
				}
			}
		}
		base.Versions.Converter = conv
		if len(mut) > 0 {
			c := base
			c.Objects = mut
			if p.mutating, err = admission.New(c); err != nil {
				return nil, status.InternalError(fmt.Errorf("admission configuration: %w", err))
			}
		}
		if len(val) > 0 {
			c := base
			c.Objects = val
			if p.validating, err = admission.New(c); err != nil {
				return nil, status.InternalError(fmt.Errorf("admission configuration: %w", err))
			}
		}
	}
	h.phases = p
	return p, nil
}

func (h *handler) admissionRequest(op admission.Operation, obj, old map[string]any, name string) admission.Request {
	ep := h.ep
	u := h.req.User
	return admission.Request{
		Operation:   op,
		Kind:        ep.gvk,
		Resource:    ep.Resource,
		SubResource: ep.Subresource,
		Name:        name,
		Namespace:   ep.Namespace,
		Object:      jsonView(obj),
		OldObject:   jsonView(old),
		DryRun:      h.dryRun,
		UserInfo:    admission.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra},
	}
}

// mutate is mutating admission: NamespaceLifecycle (create in a missing or terminating
// namespace), the Pod plugins (podCreateDefaults), builtinMutators, then
// MutatingAdmissionPolicies and mutating webhooks.
func (h *handler) mutate(op admission.Operation, obj, old map[string]any, name string) (map[string]any, error) {
	if op == admission.Create {
		if err := h.namespaceLifecycle(obj); err != nil {
			return nil, err
		}
		var err error
		if h.ep.crd == nil && h.ep.gvk.Group == "" && h.ep.gvk.Kind == "Pod" && h.ep.Subresource == "" {
			if obj, err = h.podCreateDefaults(obj); err != nil {
				return nil, err
			}
		}
		if obj, err = h.builtinMutators(obj); err != nil {
			return nil, err
		}
	}
	if op == admission.Update && h.ep.crd == nil && h.ep.gvk.Group == "" && h.ep.gvk.Kind == "Pod" && h.ep.Subresource == "" {
		obj = h.podUpdateDefaults(obj, old)
	}
	if op == admission.Update && h.ep.Subresource == "resize" {
		// LimitRanger's Admit acts on a pods/resize update as on a create (limitranger.go);
		// what it sets outside the containers' resources (its annotation) the resize
		// strategy's reset, which follows admission, takes back.
		admitted, err := h.limitRangerAdmit(op, obj, old)
		if err != nil {
			return nil, err
		}
		obj = admitted
	}
	p, err := h.admissionPhases()
	if err != nil {
		return nil, err
	}
	if p.mutating == nil {
		return obj, nil
	}
	req := h.admissionRequest(op, obj, old, name)
	res, err := p.mutating.Admit(h.ctx, req)
	h.warnings = append(h.warnings, res.RawWarnings...)
	h.recordAudit(res)
	if err != nil {
		return nil, err
	}
	if !sameMap(req.Object, obj) && value.Equal(res.Object, req.Object) {
		// Unmutated: the object keeps its present-but-empty []byte fields, which a webhook's
		// or policy's patched object (decoded again from its JSON view) has lost.
		return obj, nil
	}
	return res.Object, nil
}

// protectionFinalizers are the finalizers the StorageObjectInUseProtection admission plugin
// gives a created PersistentVolume, PersistentVolumeClaim or VolumeAttributesClass
// (plugin/pkg/admission/storage/storageobjectinuseprotection; recorded: kinds/pvc-create); their
// controllers in kube-controller-manager remove them once the object is deleted and unused.
var protectionFinalizers = map[status.GroupResource]string{
	{Resource: "persistentvolumes"}:                                "kubernetes.io/pv-protection",
	{Resource: "persistentvolumeclaims"}:                           "kubernetes.io/pvc-protection",
	{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}: "kubernetes.io/vac-protection",
}

// storageProtection is the StorageObjectInUseProtection plugin on a create: the object's
// protection finalizer is appended unless it has it. obj is the handler's own.
func (h *handler) storageProtection(obj map[string]any) map[string]any {
	f, ok := protectionFinalizers[h.ep.groupResource()]
	if !ok || h.ep.crd != nil || h.ep.Subresource != "" || h.pluginDisabled("StorageObjectInUseProtection") {
		return obj
	}
	md := ownMeta(obj)
	fs, _ := md["finalizers"].([]any)
	for _, x := range fs {
		if x == f {
			return obj
		}
	}
	md["finalizers"] = append(append([]any(nil), fs...), f)
	return obj
}

// validate is validating admission: builtinValidators, then ValidatingAdmissionPolicies and
// validating webhooks, then ResourceQuota (resourcequota.go), the last of kube-apiserver's
// validating plugins.
func (h *handler) validate(op admission.Operation, obj, old map[string]any, name string) error {
	if err := h.builtinValidators(op, obj, old, name); err != nil {
		return err
	}
	p, err := h.admissionPhases()
	if err != nil {
		return err
	}
	if p.validating != nil {
		res, err := p.validating.Admit(h.ctx, h.admissionRequest(op, obj, old, name))
		h.warnings = append(h.warnings, res.RawWarnings...)
		h.recordAudit(res)
		if err != nil {
			return err
		}
	}
	return h.resourceQuota(op, obj, old)
}

// recordAudit keeps what an admission phase recorded for the request's audit event.
func (h *handler) recordAudit(res admission.Result) {
	h.audit.Patches = append(h.audit.Patches, res.Patches...)
	for k, v := range res.AuditAnnotations {
		if h.audit.Annotations == nil {
			h.audit.Annotations = map[string]string{}
		}
		h.audit.Annotations[k] = v
	}
}

// namespaceLifecycle is the NamespaceLifecycle plugin on create: the namespace must exist and not
// be terminating (k8s.io/apiserver pkg/admission/plugin/namespace/lifecycle).
func (h *handler) namespaceLifecycle(obj map[string]any) error {
	ep := h.ep
	if h.pluginDisabled("NamespaceLifecycle") || ep.Namespace == "" || !ep.namespaced || (ep.Resource.Group == "" && ep.Resource.Resource == "namespaces") {
		return nil
	}
	if ep.Resource.Group == "authorization.k8s.io" && ep.Resource.Resource == "localsubjectaccessreviews" {
		return nil
	}
	ns, err := h.w.Get(h.ctx, schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "", ep.Namespace)
	if err != nil {
		return worldError(err, "Get(namespaces)")
	}
	if ns == nil {
		return status.NotFound(status.GroupResource{Resource: "namespaces"}, ep.Namespace)
	}
	st, _ := ns["status"].(map[string]any)
	if phase, _ := st["phase"].(string); phase == "Terminating" {
		e := status.Forbidden(ep.groupResource(), metaString(obj, "name"), fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ep.Namespace))
		e.Details.Causes = append(e.Details.Causes, status.Cause{Type: "NamespaceTerminating",
			Message: fmt.Sprintf("namespace %s is being terminated", ep.Namespace), Field: "metadata.namespace"})
		return e
	}
	return nil
}
