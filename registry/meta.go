package registry

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"time"

	ivalidation "github.com/writepath/writepath/internal/validation"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
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

// ownedTop is ownTop(obj) for what a step returned when given owned, whose top level and
// metadata map the caller owns: owned itself when the step returned it, unchanged in identity
// (mutating admission without policies or webhooks), else a copy of its top.
func ownedTop(obj, owned map[string]any) map[string]any {
	if reflect.ValueOf(obj).UnsafePointer() == reflect.ValueOf(owned).UnsafePointer() {
		return obj
	}
	return ownTop(obj)
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
	fillSystemFields(obj, h.req.Now, h.w.NewUID, h.w.GenerateName)
}

// fillSystemFields sets obj's creationTimestamp (now, to the second), a uid and, for a
// generateName without a name, a generated name.
func fillSystemFields(obj map[string]any, now time.Time, uid func() string, generateName func(string) string) {
	md := ownMeta(obj)
	md["creationTimestamp"] = now.UTC().Truncate(time.Second).Format(time.RFC3339)
	md["uid"] = uid()
	if g, _ := md["generateName"].(string); g != "" {
		if n, _ := md["name"].(string); n == "" {
			md["name"] = generateName(g)
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
	return nil
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

// beforeUpdate is rest.BeforeUpdate up to the strategy: the scope's namespace, and what a client
// cannot change: the stored generation (the strategy bumps it afterwards), creationTimestamp,
// deletionTimestamp, and the uid and deletionGracePeriodSeconds when none were sent.
func (h *handler) beforeUpdate(obj, old map[string]any) error {
	if err := ensureNamespace(obj, h.ep.expectedNamespaceForScope()); err != nil {
		return err
	}
	restoreStoredMeta(obj, old)
	if h.ep.crd != nil && h.ep.Subresource == "status" {
		// The custom resource status strategy's PrepareForUpdate copies the whole stored object
		// but status and managedFields: beyond ResetObjectMetaForStatus's fields (the field
		// manager's value reset), generateName and deletionGracePeriodSeconds too
		// (conformance/metacauses).
		md, om := ownMeta(obj), metaOf(old)
		for _, k := range []string{"generateName", "deletionGracePeriodSeconds"} {
			if v, ok := om[k]; ok {
				md[k] = v
			} else {
				delete(md, k)
			}
		}
	}
	return nil
}

// restoreStoredMeta is what rest.BeforeUpdate keeps of the stored object old in obj (owned by
// the caller): the generation, creationTimestamp, deletionTimestamp, and the uid and
// deletionGracePeriodSeconds when none were sent.
func restoreStoredMeta(obj, old map[string]any) {
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
}

// validateObjectMeta is ValidateObjectMetaAccessor (and, on update, ValidateObjectMetaAccessor
// then ValidateObjectMetaAccessorUpdate, as rest.ValidateUpdate's validateCommonFields runs
// them). Nothing merges the two lists here: an error both report is listed twice, as the
// apiserver lists it where no declarative validation merges the errors (declarativeStrategy).
func (h *handler) validateObjectMeta(obj, old map[string]any, nameRule func(string, bool) []string) (field.ErrorList, error) {
	opts := schema.ObjectMetaOptions{Namespaced: h.ep.namespaced, ResourceVersionSet: true, NameRule: nameRule}
	md, oldMD := h.metaToValidate(obj, old)
	return objectMetaErrors(md, oldMD, old != nil, opts)
}

// metaToValidate is the metadata of obj and old as validation reads it.
func (h *handler) metaToValidate(obj, old map[string]any) (map[string]any, map[string]any) {
	md, oldMD := metaOf(obj), metaOf(old)
	if !h.clientManagedFields {
		// managedFields written by the field manager are valid by construction; validating them
		// means encoding them (the largest part of metadata) each time.
		md, oldMD = withoutKey(md, "managedFields"), withoutKey(oldMD, "managedFields")
	}
	return md, oldMD
}

// strategyObjectMetaUpdate is the metadata update rules a CustomResourceDefinition's strategy
// (ValidateCustomResourceDefinitionUpdate and the /status one) runs after the common ones:
// apimachinery's ValidateObjectMetaDeclaratively on update, the hand-written
// ValidateObjectMetaUpdate (the declarative ObjectMeta rules are alpha, never enforced) through
// FilterCoveredHandwrittenErrors, which keeps each message once.
func (h *handler) strategyObjectMetaUpdate(obj, old map[string]any) (field.ErrorList, error) {
	md, oldMD := h.metaToValidate(obj, old)
	errs, err := schema.ValidateObjectMetaUpdate(md, oldMD, schema.ObjectMetaOptions{Namespaced: h.ep.namespaced, ResourceVersionSet: true}, field.NewPath("metadata"))
	if err != nil {
		return nil, status.BadRequest(err.Error())
	}
	return errs.Filter(), nil
}

// declarativeStrategy reports whether the endpoint's strategy is one of k8s.io/kubernetes's,
// every one of which embeds rest.DeclarativeValidation: rest.ValidateCreate and ValidateUpdate
// then pass the whole list (common ObjectMeta errors and the strategy's) through
// ValidateDeclarativelyWithMigrationChecks, whose FilterCoveredHandwrittenErrors goes through
// ToAggregate and so keeps each message once. The custom resource, CustomResourceDefinition
// (apiextensions-apiserver) and APIService (kube-aggregator) strategies do not: their lists are
// concatenated as they are (a bad label on an APIService update is listed four times; recorded:
// dupcauses).
func (ep *endpoint) declarativeStrategy() bool {
	return ep.crd == nil && !nonDeclarativeGroup(ep.gvk.Group)
}

// nonDeclarativeGroup reports whether group's strategies are not k8s.io/kubernetes's.
func nonDeclarativeGroup(group string) bool {
	return group == "apiextensions.k8s.io" || group == "apiregistration.k8s.io"
}

// objectMetaErrors is the common ObjectMeta validation of md (and, when update, its update
// against oldMD), the two lists concatenated; metadata that cannot be read is a 400.
func objectMetaErrors(md, oldMD map[string]any, update bool, opts schema.ObjectMetaOptions) (field.ErrorList, error) {
	fld := field.NewPath("metadata")
	errs, err := schema.ValidateObjectMeta(md, opts, fld)
	if err != nil {
		return nil, status.BadRequest(err.Error())
	}
	if update {
		upd, err := schema.ValidateObjectMetaUpdate(md, oldMD, opts, fld)
		if err != nil {
			return nil, status.BadRequest(err.Error())
		}
		errs = append(errs, upd...)
	}
	return errs, nil
}

// ValidateObjectMeta is the registry's common ObjectMeta validation as an admission step (an
// admission.ValidateFunc, for a chain run outside Handle, as `writepath admit` runs it):
// ValidateObjectMetaAccessor on a create or update of the main resource and, on an update with
// req.OldObject, ValidateObjectMetaAccessorUpdate after it, as rest.ValidateUpdate's
// validateCommonFields runs them (an error both report is answered once for a built-in kind of
// k8s.io/kubernetes, whose strategy's declarative merge keeps each message once; twice for
// custom resources, CustomResourceDefinitions and APIServices), with names as DNS subdomains. Its resourceVersion check never answers: the store has refused an update without
// one or given it the stored one. The scope is the catalogue's for a built-in resource, otherwise
// (custom resources) whether the request names a namespace, as its URL would. The errors are
// the 422 Invalid of req's kind; metadata that cannot be read is a 400.
func ValidateObjectMeta(_ context.Context, req admission.Request, obj map[string]any) ([]string, error) {
	if req.SubResource != "" || (req.Operation != admission.Create && req.Operation != admission.Update) {
		return nil, nil
	}
	var oldMD map[string]any
	update := req.Operation == admission.Update && req.OldObject != nil
	if update {
		oldMD = metaOf(req.OldObject)
	}
	opts := schema.ObjectMetaOptions{Namespaced: requestNamespaced(req), ResourceVersionSet: true}
	errs, err := objectMetaErrors(metaOf(obj), oldMD, update, opts)
	if err != nil {
		return nil, err
	}
	if _, builtin := schema.Builtin(req.Kind); builtin == nil && !nonDeclarativeGroup(req.Kind.Group) {
		// A k8s.io/kubernetes strategy's declarative merge keeps each message once.
		errs = errs.Filter()
	}
	if len(errs) == 0 {
		return nil, nil
	}
	return nil, status.Invalid(status.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}, metaString(obj, "name"), errs)
}

// requestNamespaced reports whether req's resource is namespace-scoped: the catalogue's scope for
// a built-in resource, otherwise whether the request names a namespace (the apiserver serves
// writes of a namespaced resource only under /namespaces/<ns>/).
func requestNamespaced(req admission.Request) bool {
	if k, err := schema.BuiltinForResource(req.Resource); err == nil {
		return k.Namespaced
	}
	if k, err := schema.Builtin(req.Kind); err == nil && k.Resource != "" {
		return k.Namespaced
	}
	return req.Namespace != ""
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

// pathSegmentName is apimachinery's path.ValidatePathSegmentName, the name rule of the common
// ObjectMeta validation rest.BeforeCreate runs after the strategy's.
func pathSegmentName(name string, prefix bool) []string {
	if prefix {
		return ivalidation.IsValidPathSegmentPrefix(name)
	}
	return ivalidation.IsValidPathSegmentName(name)
}

// sameMap reports whether a and b are the same map (not merely equal ones).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
