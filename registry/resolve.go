package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
	"github.com/writepath/writepath/versions"
)

// endpoint is a resolved Target: the resource's kind and rules.
type endpoint struct {
	Target
	// gvk is the kind of the main resource at the request's version.
	gvk schema.GroupVersionKind
	// builtin is the catalogue's kind for a built-in resource, nil for a custom resource.
	builtin *schema.Kind
	// crd and version are the custom resource's CRD and served version.
	crd     *schema.CRD
	version *schema.Version
	// namespaced is the resource's scope.
	namespaced bool
	// strategy is the resource's versions strategy.
	strategy versions.Strategy
}

func (e *endpoint) groupResource() status.GroupResource {
	return status.GroupResource{Group: e.Resource.Group, Resource: e.Resource.Resource}
}

func (e *endpoint) groupKind() status.GroupKind {
	return status.GroupKind{Group: e.gvk.Group, Kind: e.gvk.Kind}
}

// resolve finds the resource t names: a built-in resource the apiserver serves by default, or a
// served version of a CRD the world holds. Anything else, a scope that does not match the URL
// or an unknown subresource is the router's 404.
func resolve(ctx context.Context, w World, t Target) (*endpoint, error) {
	e := &endpoint{Target: t}
	if k, err := schema.BuiltinForResource(t.Resource); err == nil && k.ServedByDefault && k.Resource == t.Resource.Resource {
		e.builtin, e.gvk, e.namespaced = k, k.GVK, k.Namespaced
		if s, ok := versions.BuiltinResource(schema.GroupVersionResource{Group: t.Resource.Group, Resource: t.Resource.Resource}); ok {
			e.strategy = s
		} else {
			e.strategy = versions.Strategy{Group: t.Resource.Group, Resource: t.Resource.Resource, Kind: k.GVK.Kind,
				Strategy: schema.Strategy{AllowUnconditionalUpdate: true}}
		}
		if t.Subresource != "" && !k.Subresources.Has(t.Subresource) {
			return nil, errNotFoundRoute()
		}
	} else {
		var nf *schema.NotFoundError
		if err != nil && !errors.As(err, &nf) {
			return nil, fmt.Errorf("registry: resolving %s: %w", t.Resource, err)
		}
		crd, err := w.CRD(ctx, t.Resource.Group, t.Resource.Resource)
		if err != nil {
			return nil, fmt.Errorf("registry: World.CRD(%s, %s): %w", t.Resource.Group, t.Resource.Resource, err)
		}
		if crd == nil {
			if builtinGroup(t.Resource.Group) {
				return nil, errNotFoundRoute()
			}
			return nil, errPageNotFound()
		}
		v := crd.Version(t.Resource.Version)
		if v == nil || !v.Served {
			return nil, errPageNotFound()
		}
		if !crd.Namespaced() && t.Namespace != "" {
			return nil, errPageNotFound()
		}
		e.crd, e.version, e.gvk, e.namespaced = crd, v, v.GVK(), crd.Namespaced()
		opts := versions.CustomResourceOptions{StatusSubresource: v.Subresources.Status}
		if v.Subresources.Scale != nil {
			opts.SpecReplicasPath = v.Subresources.Scale.SpecReplicasPath
		}
		e.strategy = versions.CustomResource(crd.Group, crd.Names.Plural, crd.Names.Kind, opts)
		// The custom resource handler answers a subresource the version does not serve as the
		// object not found (recorded: crd-gizmo/status-not-found, scale-not-found).
		notServed := status.NotFound(status.GroupResource{Group: crd.Group, Resource: crd.Names.Plural}, t.Name)
		switch t.Subresource {
		case "":
		case "status":
			if !v.Subresources.Status {
				return nil, notServed
			}
		case "scale":
			if v.Subresources.Scale == nil {
				return nil, notServed
			}
		default:
			return nil, notServed
		}
	}
	// The routes of a namespaced resource are under /namespaces/NS/ (and, for lists, also at the
	// top level); a cluster-scoped resource has none there.
	if !e.namespaced && t.Namespace != "" {
		return nil, errNotFoundRoute()
	}
	if t.Subresource != "" && t.Name == "" {
		return nil, errNotFoundRoute()
	}
	return e, nil
}

// deprecationWarning is the warning every request to the endpoint's version gets: a CRD
// version's (apiextensions' handler adds it for every verb and subresource), or a built-in
// deprecated version's (the installer adds it to the routes of the resource and of the
// subresources that serve the same kind).
func (e *endpoint) deprecationWarning() string {
	if e.crd != nil {
		return e.version.Warning()
	}
	switch e.Subresource {
	case "", "status":
		return schema.BuiltinDeprecationWarning(e.gvk)
	}
	return ""
}

// builtinGroup reports whether group is an API group of kube-apiserver's own (the core group
// included): its router answers a path it does not serve with a NotFound Status, where a group
// of no built-in API falls through to the last handler's text 404.
func builtinGroup(group string) bool {
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		return true
	}
	for _, k := range kinds {
		if k.ServedByDefault && k.GVK.Group == group {
			return true
		}
	}
	return false
}

// allowCreateOnUpdate lists the built-in resources whose strategy's AllowCreateOnUpdate is true
// in Kubernetes 1.37 (k8s.io/kubernetes pkg/registry/.../strategy.go): a PUT of a missing object
// creates it. Custom resources do not allow it.
var allowCreateOnUpdate = map[status.GroupResource]bool{
	{Resource: "endpoints"}:                                               true,
	{Resource: "events"}:                                                  true,
	{Resource: "limitranges"}:                                             true,
	{Group: "events.k8s.io", Resource: "events"}:                          true,
	{Group: "coordination.k8s.io", Resource: "leases"}:                    true,
	{Group: "rbac.authorization.k8s.io", Resource: "roles"}:               true,
	{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}:        true,
	{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}:        true,
	{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}: true,
}

// fieldManagerConfig is what the endpoint gives the field manager: types, reset fields and value
// resets of the subresource, the CRD's defaulting for an apply.
func (e *endpoint) fieldManagerConfig(sub string) (apply.Request, error) {
	req := apply.Request{Kind: e.gvk, Subresource: sub, Resource: e.groupResource()}
	if e.crd != nil {
		if err := apply.ConfigureCRD(&req, e.crd, sub); err != nil {
			return req, err
		}
		return req, nil
	}
	if e.builtin.SMDTypeName() == "" {
		req.Types = apply.Deduced
	} else {
		req.Types = apply.Builtin
	}
	if e.strategy.StorageVersion != "" {
		req.Convert = builtinVersionConverter(e.gvk)
	}
	req.ResetFields = apply.ResetFields(e.gvk, sub)
	req.ResetValues = apply.ResetPaths(e.gvk, sub)
	req.Reset = apply.StrategyReset(e.gvk, sub)
	req.Validate = apply.StrategyValidation(e.gvk, sub)
	req.KeepEmptyBytes = e.keepsEmptyBytes()
	return req, nil
}
