package registry

import (
	"fmt"
	"maps"
	"time"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
	"github.com/writepath/writepath/status"
)

// The registry's steps on metadata (moved here from the admission chain, where they were
// emulated around admission): the handlers' namespace and name checks
// (k8s.io/apiserver pkg/endpoints/handlers create.go, update.go, patch.go), the store's system
// fields (pkg/registry/generic/registry/store.go Create), rest.BeforeCreate and
// rest.BeforeUpdate (pkg/registry/rest/create.go, update.go).

// ownTop returns a copy of obj whose top level and metadata map are its own. After decoding, the
// pipeline's steps change only metadata fields (and set top-level ones), so deeper values are
// shared with their source and never modified; this saves a deep copy per step.
func ownTop(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj)+1)
	for k, v := range obj {
		out[k] = v
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		c := make(map[string]any, len(md)+4)
		for k, v := range md {
			c[k] = v
		}
		out["metadata"] = c
	}
	return out
}

func metaOf(obj map[string]any) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	return md
}

// ownMeta returns obj's metadata map, creating it; obj must be owned by the caller.
func ownMeta(obj map[string]any) map[string]any {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
		obj["metadata"] = md
	}
	return md
}

func metaString(obj map[string]any, k string) string {
	s, _ := metaOf(obj)[k].(string)
	return s
}

// wipeSystemFields is rest.WipeObjectMetaSystemFields, which the create handler runs before
// admission: a client cannot set these.
func wipeSystemFields(obj map[string]any) {
	md := metaOf(obj)
	for _, k := range []string{"creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		delete(md, k)
	}
}

// expectedNamespaceForResource is rest.ExpectedNamespaceForResource: "" for namespaces themselves.
func (e *endpoint) expectedNamespaceForResource() string {
	if e.Resource.Group == "" && e.Resource.Resource == "namespaces" {
		return ""
	}
	return e.Namespace
}

// expectedNamespaceForScope is rest.ExpectedNamespaceForScope.
func (e *endpoint) expectedNamespaceForScope() string {
	if !e.namespaced {
		return ""
	}
	return e.Namespace
}

// ensureNamespace is rest.EnsureObjectNamespaceMatchesRequestNamespace: an object without a
// namespace gets expected, an expected "" clears the object's, any other difference is a 400.
func ensureNamespace(obj map[string]any, expected string) error {
	ns := metaString(obj, "namespace")
	switch {
	case ns == expected:
		return nil
	case ns == "":
		ownMeta(obj)["namespace"] = expected
		return nil
	case expected == "":
		delete(metaOf(obj), "namespace")
		return nil
	}
	return status.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
}

// checkURLName is the update handler's check: the object's name must be the URL's.
func checkURLName(obj map[string]any, name string) error {
	if n := metaString(obj, "name"); n != name {
		return status.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", n, name))
	}
	return nil
}

// checkPatchedName is the patch handler's checkName on the patched object.
func checkPatchedName(obj map[string]any, name, namespace string) error {
	if n := metaString(obj, "name"); n != name {
		return status.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", n, name))
	}
	if namespace != "" {
		if ns := metaString(obj, "namespace"); ns != "" && ns != namespace {
			return status.BadRequest(fmt.Sprintf("the namespace of the object (%s) does not match the namespace on the request (%s)", ns, namespace))
		}
	}
	return nil
}

// fillSystemFields is the store's Create before rest.BeforeCreate: FillObjectMetaSystemFields
// (creationTimestamp from the request's clock, a fresh uid) and generateName.
func (h *handler) fillSystemFields(obj map[string]any) {
	md := ownMeta(obj)
	md["creationTimestamp"] = h.req.Now.UTC().Truncate(time.Second).Format(time.RFC3339)
	md["uid"] = h.w.NewUID()
	if g, _ := md["generateName"].(string); g != "" {
		if n, _ := md["name"].(string); n == "" {
			md["name"] = h.w.GenerateName(g)
		}
	}
}

// beforeCreate is rest.BeforeCreate up to the strategy: the scope's namespace and no deletion
// fields.
func (h *handler) beforeCreate(obj map[string]any) error {
	if err := ensureNamespace(obj, h.ep.expectedNamespaceForScope()); err != nil {
		return err
	}
	md := ownMeta(obj)
	delete(md, "deletionTimestamp")
	delete(md, "deletionGracePeriodSeconds")
	if h.ep.gvk.Group == "" && h.ep.Subresource == "" {
		switch h.ep.gvk.Kind {
		case "Namespace":
			prepareNamespaceForCreate(obj)
		case "Pod":
			preparePodForCreate(obj)
		}
	}
	if h.ep.gvk.Group == "batch" && h.ep.gvk.Kind == "Job" && h.ep.Subresource == "" {
		prepareJobForCreate(obj)
	}
	return nil
}

// preparePodForCreate is the pod strategy's PrepareForCreate after generation
// (pkg/registry/core/pod/strategy.go): the status is replaced by phase Pending, a Pod with
// scheduling gates gets the PodScheduled=False SchedulingGated condition, pod-level resources
// are defaulted from the containers' (podutil.DefaultPodLevelResources) and the QoS class is
// computed. The affinity and topology-spread label keys (MatchLabelKeysInPodAffinity,
// MatchLabelKeysInPodTopologySpreadSelectorMerge) and the AppArmor annotation sync are not
// modelled.
func preparePodForCreate(obj map[string]any) {
	st := map[string]any{"phase": "Pending"}
	obj["status"] = st
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		st["qosClass"] = validation.PodQOS(obj)
		return
	}
	if gates, _ := spec["schedulingGates"].([]any); len(gates) > 0 {
		st["conditions"] = []any{map[string]any{"type": "PodScheduled", "status": "False",
			"reason": "SchedulingGated", "message": "Scheduling is blocked due to non-empty scheduling gates",
			"lastProbeTime": nil, "lastTransitionTime": nil}}
	}
	if _, ok := spec["resources"]; ok {
		c, err := value.DeepCopyMap(spec)
		if err == nil {
			obj["spec"] = c
			validation.DefaultPodLevelResources(c)
		}
	}
	st["qosClass"] = validation.PodQOS(obj)
}

// canonicalize is the strategy's Canonicalize, after validation on create and update: a
// Namespace's kubernetes.io/metadata.name label is its name (set by defaulting too, but a
// generated name is known only now).
func (h *handler) canonicalize(obj map[string]any) {
	if h.ep.gvk.Group != "" || h.ep.gvk.Kind != "Namespace" {
		return
	}
	md := ownMeta(obj)
	labels, _ := md["labels"].(map[string]any)
	labels = maps.Clone(labels)
	if labels == nil {
		labels = map[string]any{}
	}
	labels["kubernetes.io/metadata.name"] = md["name"]
	md["labels"] = labels
}

// prepareJobForCreate is the Job strategy's PrepareForCreate (pkg/registry/batch/job): unless
// spec.manualSelector is true, the template gets the job-name and controller-uid labels (legacy
// and batch.kubernetes.io/ keys, each unless already set) and the selector matchLabels the
// batch.kubernetes.io/controller-uid one, from the uid storage just gave the object. A Job
// without labels then reads the template's: the defaulting that copies them runs again when the
// apiserver decodes what it stored.
func prepareJobForCreate(obj map[string]any) {
	md := ownMeta(obj)
	spec, _ := obj["spec"].(map[string]any)
	if manual, _ := spec["manualSelector"].(bool); manual {
		return
	}
	name, _ := md["name"].(string)
	uid, _ := md["uid"].(string)
	ns := make(map[string]any, len(spec))
	for k, v := range spec {
		ns[k] = v
	}
	tmpl := copyMap(spec["template"])
	tmd := copyMap(tmpl["metadata"])
	tl := copyMap(tmd["labels"])
	for _, k := range []string{"job-name", "batch.kubernetes.io/job-name"} {
		if _, ok := tl[k]; !ok {
			tl[k] = name
		}
	}
	for _, k := range []string{"controller-uid", "batch.kubernetes.io/controller-uid"} {
		if _, ok := tl[k]; !ok {
			tl[k] = uid
		}
	}
	tmd["labels"] = tl
	tmpl["metadata"] = tmd
	ns["template"] = tmpl
	sel := copyMap(spec["selector"])
	ml := copyMap(sel["matchLabels"])
	if _, ok := ml["batch.kubernetes.io/controller-uid"]; !ok {
		ml["batch.kubernetes.io/controller-uid"] = uid
	}
	sel["matchLabels"] = ml
	ns["selector"] = sel
	obj["spec"] = ns
	if l, _ := md["labels"].(map[string]any); len(l) == 0 {
		md["labels"] = copyMap(tl)
	}
}

// copyMap is a shallow copy of a map value (a fresh empty map for anything else).
func copyMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	out := make(map[string]any, len(m)+2)
	for k, x := range m {
		out[k] = x
	}
	return out
}

// prepareNamespaceForCreate is the namespace strategy's PrepareForCreate
// (pkg/registry/core/namespace/strategy.go): the phase is Active and spec.finalizers holds
// "kubernetes", which the namespace controller removes once the namespace's content is gone.
func prepareNamespaceForCreate(obj map[string]any) {
	obj["status"] = map[string]any{"phase": "Active"}
	spec, _ := obj["spec"].(map[string]any)
	fins, _ := spec["finalizers"].([]any)
	for _, f := range fins {
		if f == "kubernetes" {
			return
		}
	}
	ns := make(map[string]any, len(spec)+1)
	for k, v := range spec {
		ns[k] = v
	}
	ns["finalizers"] = append(append([]any(nil), fins...), "kubernetes")
	obj["spec"] = ns
}

// beforeUpdate is rest.BeforeUpdate up to the strategy: the scope's namespace, and what a client
// cannot change: the stored generation (the strategy bumps it afterwards), creationTimestamp,
// deletionTimestamp, and the uid and deletionGracePeriodSeconds when none were sent.
func (h *handler) beforeUpdate(obj, old map[string]any) error {
	if err := ensureNamespace(obj, h.ep.expectedNamespaceForScope()); err != nil {
		return err
	}
	om := metaOf(old)
	md := ownMeta(obj)
	restore := func(k string) {
		if v, ok := om[k]; ok && v != nil {
			md[k] = v
		} else {
			delete(md, k)
		}
	}
	restore("generation")
	if g, _ := om["generation"].(int64); g == 0 {
		delete(md, "generation")
	}
	if s, _ := md["uid"].(string); s == "" {
		restore("uid")
	}
	if s, _ := om["creationTimestamp"].(string); s != "" {
		restore("creationTimestamp")
	}
	if s, _ := om["deletionTimestamp"].(string); s != "" {
		restore("deletionTimestamp")
	}
	if om["deletionGracePeriodSeconds"] != nil && md["deletionGracePeriodSeconds"] == nil {
		restore("deletionGracePeriodSeconds")
	}
	if h.ep.gvk.Group == "" && h.ep.gvk.Kind == "Namespace" && h.ep.Subresource == "" {
		prepareNamespaceForUpdate(obj, old)
	}
	return nil
}

// prepareNamespaceForUpdate is the namespace strategy's PrepareForUpdate beside its reset of
// the status: spec.finalizers stays the stored one (only namespaces/finalize changes it).
func prepareNamespaceForUpdate(obj, old map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	oldSpec, _ := old["spec"].(map[string]any)
	ns := maps.Clone(spec)
	if ns == nil {
		ns = map[string]any{}
	}
	if f, ok := oldSpec["finalizers"]; ok {
		ns["finalizers"] = f
	} else {
		delete(ns, "finalizers")
	}
	if len(ns) == 0 && spec == nil {
		return
	}
	obj["spec"] = ns
}

// validateObjectMeta is ValidateObjectMetaAccessor (and, on update, ValidateObjectMetaAccessor
// then ValidateObjectMetaAccessorUpdate, as rest.ValidateUpdate's validateCommonFields runs them;
// an error both report is answered once).
func (h *handler) validateObjectMeta(obj, old map[string]any) (field.ErrorList, error) {
	opts := schema.ObjectMetaOptions{Namespaced: h.ep.namespaced, ResourceVersionSet: true}
	fld := field.NewPath("metadata")
	md, oldMD := metaOf(obj), metaOf(old)
	if !h.clientManagedFields {
		// managedFields written by the field manager are valid by construction; validating them
		// means encoding them (the largest part of metadata) each time.
		md, oldMD = withoutKey(md, "managedFields"), withoutKey(oldMD, "managedFields")
	}
	errs, err := schema.ValidateObjectMeta(md, opts, fld)
	if err != nil {
		return nil, status.BadRequest(err.Error())
	}
	if old != nil {
		upd, err := schema.ValidateObjectMetaUpdate(md, oldMD, opts, fld)
		if err != nil {
			return nil, status.BadRequest(err.Error())
		}
		errs = appendNew(errs, upd)
	}
	return errs, nil
}

// withoutKey returns m without k (m itself when it has no k).
func withoutKey(m map[string]any, k string) map[string]any {
	if _, ok := m[k]; !ok {
		return m
	}
	out := make(map[string]any, len(m))
	for key, v := range m {
		if key != k {
			out[key] = v
		}
	}
	return out
}
