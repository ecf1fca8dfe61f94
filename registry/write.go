package registry

import (
	"errors"
	"fmt"
	"slices"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema/validation"
	"github.com/writepath/writepath/status"
	"github.com/writepath/writepath/versions"
)

// create is POST on a collection (k8s.io/apiserver pkg/endpoints/handlers/create.go).
func (h *handler) create() (Response, []Write, error) {
	ep := h.ep
	if ep.namespaced && ep.Namespace == "" {
		return Response{}, nil, status.RouteError(405, "405: Method Not Allowed")
	}
	format, err := h.bodyFormat()
	if err != nil {
		return Response{}, nil, err
	}
	if err := limitBody(h.req.Body); err != nil {
		return Response{}, nil, err
	}
	o, err := h.parseWriteOptions("CreateOptions", false)
	if err != nil {
		return Response{}, nil, err
	}
	d, err := h.readBody(format, ep.gvk, o.level())
	if err != nil {
		return Response{}, nil, err
	}
	if ep.builtin != nil && ep.Resource.Group == "" && ep.Resource.Resource == "bindings" {
		// LegacyBindingREST: POST namespaces/NS/bindings binds the Pod the Binding names, as
		// POST pods/NAME/binding does.
		return h.legacyBinding(metaString(d.obj, "name"))
	}
	if format != codec.FormatYAML {
		h.document = h.req.Body
	}
	obj, err := h.typed(d.obj, d.duplicates, o.level(), bodyDecodeError(ep.gvk))
	h.document = nil
	if err != nil {
		return Response{}, nil, err
	}
	obj = ownTop(obj)
	if err := h.validateAccessReview(obj); err != nil {
		return Response{}, nil, err
	}
	wipeSystemFields(obj)
	if err := ensureNamespace(obj, ep.expectedNamespaceForResource()); err != nil {
		return Response{}, nil, err
	}
	// managedFields of the create, before admission (FieldManager.UpdateNoErrors on New()).
	if obj, err = h.manageUpdate(nil, obj, o); err != nil {
		return Response{}, nil, err
	}
	if ep.reviewKind() != "" {
		// The review kinds' RESTs answer a create without storing it (reviews.go).
		if err := h.prepareValues(obj, nil); err != nil {
			return Response{}, nil, err
		}
		return h.review(obj)
	}
	return h.finishCreate(obj, o, metaString(obj, "name"))
}

// finishCreate runs what follows the field manager on a create: mutating admission, the store's
// system fields, rest.BeforeCreate (the strategy's PrepareForCreate, Validate, ObjectMeta),
// validating admission and storage.
func (h *handler) finishCreate(obj map[string]any, o writeOptions, name string) (Response, []Write, error) {
	ep := h.ep
	mutated, err := h.mutate(admission.Create, obj, nil, name)
	if err != nil {
		return Response{}, nil, err
	}
	obj = ownedTop(mutated, obj)
	// The store fills the system fields and generates the name before the Service REST's
	// BeginCreate allocates (its IPAddresses name the Service).
	h.fillSystemFields(obj)
	if h.isService() {
		if obj, err = h.serviceBegin(obj, nil); err != nil {
			return Response{}, nil, err
		}
	}
	if err := h.beforeCreate(obj); err != nil {
		return Response{}, nil, err
	}
	if err := h.prepareValues(obj, nil); err != nil {
		return Response{}, nil, err
	}
	g, err := versions.GenerationOnCreate(ep.strategy, obj)
	if err != nil {
		return Response{}, nil, status.BadRequest(err.Error())
	}
	setGeneration(ownMeta(obj), g.New)
	if ep.crd == nil && ep.Subresource != "scale" {
		// The kind's own PrepareForCreate effects (dropped and derived fields).
		u := h.req.User
		obj = validation.PrepareForCreate(ep.gvk, obj, validation.Options{Subresource: ep.Subresource, Now: h.req.Now,
			User: &validation.User{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}})
		if ep.isCRDResource() {
			obj = prepareCRDCreate(obj)
		}
		obj = readBackDefaults(ep, obj)
	}
	if err := h.validateWrite(obj, nil); err != nil {
		return Response{}, nil, err
	}
	h.canonicalize(obj)
	if err := h.validate(admission.Create, obj, nil, metaString(obj, "name")); err != nil {
		return Response{}, nil, err
	}
	name = metaString(obj, "name")
	existing, err := h.w.Get(h.ctx, ep.Resource, ep.expectedNamespaceForScope(), name)
	if err != nil {
		return Response{}, nil, worldError(err, "Get")
	}
	if existing != nil {
		if metaString(obj, "generateName") != "" && metaString(existing, "name") == name {
			return Response{}, nil, status.AlreadyExists(ep.groupResource(), name)
		}
		return Response{}, nil, status.AlreadyExists(ep.groupResource(), name)
	}
	// Only storage refuses a create that carries a resourceVersion: a dry run never reaches it
	// (DryRunnableStorage.Create checks that the key is free and answers the object as it is).
	if !h.dryRun {
		if err := versions.CheckCreate(obj); err != nil {
			return Response{}, nil, err
		}
	}
	return h.withServiceWrites(h.store(obj, 201))
}

// withServiceWrites puts the IPAddress writes of a Service write's allocation (serviceBegin)
// before the Service's own.
func (h *handler) withServiceWrites(resp Response, writes []Write, err error) (Response, []Write, error) {
	if err != nil || h.svc == nil || h.dryRun || len(h.svc.created) == 0 {
		return resp, writes, err
	}
	return resp, append(slices.Clone(h.svc.created), writes...), nil
}

// store ends a successful write: the object gets the next resourceVersion (none on a dry-run
// create; a dry-run update keeps the stored one) and is returned with code.
func (h *handler) store(obj map[string]any, code int) (Response, []Write, error) {
	var writes []Write
	if !h.dryRun {
		ownMeta(obj)["resourceVersion"] = h.w.NextResourceVersion()
	}
	answer := obj
	if h.ep.crd != nil {
		// The etcd store encodes the object in the storage version and decodes what it stored
		// (a dry run too: DryRunnableStorage copies through the codec).
		stored, a, answerErr, err := h.crStore(obj)
		if err != nil {
			return Response{}, nil, err
		}
		if !h.dryRun {
			writes = append(writes, Write{Resource: h.ep.Resource, Namespace: metaString(obj, "namespace"), Name: metaString(obj, "name"), Object: stored})
		}
		if answerErr != nil {
			// Stored, but not read back: the client gets the 500, watchers the object.
			return h.errorResponse(answerErr), writes, nil
		}
		answer = a
	} else if !h.dryRun {
		writes = append(writes, Write{Resource: h.ep.Resource, Namespace: metaString(obj, "namespace"), Name: metaString(obj, "name"), Object: obj})
	}
	resp, err := h.respond(code, h.responseObject(answer))
	return resp, writes, err
}

// responseObject is what the response carries for the stored object: the object itself, or for
// /scale its Scale.
func (h *handler) responseObject(obj map[string]any) map[string]any {
	if h.ep.Subresource == "scale" {
		if s, err := h.scaleAnswer(obj); err == nil {
			return s
		}
	}
	return obj
}

func setGeneration(md map[string]any, g int64) {
	if g == 0 {
		delete(md, "generation")
		return
	}
	md["generation"] = g
}

// manageUpdate records the ownership of a create, update or non-apply patch
// (FieldManager.UpdateNoErrors): live nil is a create. The field manager ignores the fields the
// endpoint's strategy resets; their values are reset after mutating admission (h.prepare).
func (h *handler) manageUpdate(live, obj map[string]any, o writeOptions) (map[string]any, error) {
	cfg, err := h.fieldManager(h.ep.Subresource)
	if err != nil {
		var se *status.Error
		if errors.As(err, &se) {
			return nil, se
		}
		return nil, status.InternalError(err)
	}
	h.setPrepare(cfg, live == nil)
	res, err := apply.Update(apply.UpdateRequest{Live: live, Object: obj, Kind: h.ep.gvk, Manager: h.manager(o), UserAgent: h.req.UserAgent,
		OptionsKind: o.kind, Subresource: h.ep.Subresource, Now: h.req.Now, Types: cfg.Types, Convert: cfg.Convert,
		ResetFields: cfg.ResetFields, CreateFrom: cfg.CreateFrom,
		// The storage layer's timestamp rule follows the strategy (finishUpdate).
		LibraryOnly: true,
		// obj is the handler's own (decoded from the request, or the patch's result): the
		// field manager may write into it instead of copying it; and the pipeline changes
		// nothing below the top level and metadata (ownTop), so the values the strategy
		// resets from live may be live's own.
		ObjectOwned: true, LiveShared: true})
	if err != nil {
		return nil, asStatus(err)
	}
	// The result's top level and metadata are obj's or fresh (ObjectOwned): the handler's own.
	return res.Object, nil
}

// setPrepare keeps what the strategy does to the write after mutating admission (h.prepare):
// cfg's value resets and update validation. On a create the strategy's PrepareForCreate resets
// the status only (a CertificateSigningRequest's main resource also resets spec on update, its
// PrepareForUpdate keeping the stored spec), or nothing for the kinds that keep it.
func (h *handler) setPrepare(cfg apply.Request, create bool) {
	values := cfg.ResetValues
	if create && h.ep.crd == nil && h.ep.Subresource == "" {
		if validation.KeepsStatusOnCreate(h.ep.gvk) {
			values = nil
		} else {
			var status [][]string
			for _, p := range values {
				if len(p) > 0 && p[0] == "status" {
					status = append(status, p)
				}
			}
			values = status
		}
	}
	h.prepare = &strategyPrepare{
		values: apply.Prepare{Kind: h.ep.gvk, Types: cfg.Types, CreateFrom: cfg.CreateFrom,
			ResetValues: values, Reset: cfg.Reset, LiveShared: true},
		validate: cfg.Validate,
	}
}

// prepareValues is the strategy's value reset of the write (h.prepare) on obj, the handler's
// own, from live (nil on a create); then its update validation.
func (h *handler) prepareValues(obj, live map[string]any) error {
	if h.prepare == nil {
		return nil
	}
	h.prepare.values.Apply(obj, live)
	return apply.ValidateUpdate(h.prepare.validate, obj, live)
}

// asStatus returns err as a status error (a field error of malformed metadata is the decoder's 400).
func asStatus(err error) error {
	if err == nil {
		return nil
	}
	var st *status.Error
	if errors.As(err, &st) {
		return err
	}
	var ie *internalError
	if errors.As(err, &ie) {
		return err
	}
	var fe *field.Error
	if errors.As(err, &fe) {
		return status.BadRequest(err.Error())
	}
	return status.InternalError(err)
}

// validateWrite is the strategy's Validate (create, old nil) or ValidateUpdate and then the
// ObjectMeta validation every strategy runs (rest.BeforeCreate, rest.BeforeUpdate): for a custom
// resource the structural schema, list sets and maps, embedded resources and the
// x-kubernetes-validations rules; for a built-in kind the ObjectMeta rules, then the kind's own
// (package schema/validation: nil for kinds it does not model yet) in one 422, and the kind's
// warnings once validation passed.
func (h *handler) validateWrite(obj, old map[string]any) error {
	ep := h.ep
	if ep.crd != nil {
		v := ep.version
		var errs field.ErrorList
		switch {
		case old == nil:
			errs = v.ValidateCreate(obj)
		case ep.Subresource == "status":
			errs = v.ValidateStatusUpdate(obj, old)
		default:
			errs = v.ValidateUpdate(obj, old)
		}
		var r cel.Result
		if cc, ok := h.w.(CELCache); ok && cc.CELValidators(ep.crd) != nil {
			r = cc.CELValidators(ep.crd).ValidateCustomResource(h.ctx, v, obj, old, errs)
		} else {
			r = cel.ValidateCustomResource(h.ctx, v, obj, old, errs)
		}
		errs = append(errs, r.Errors...)
		h.warnings = append(h.warnings, r.Warnings...)
		if old != nil {
			// rest.ValidateUpdate: the common ObjectMeta validation (validateCommonFields, names
			// as path segments) before the strategy's, the lists concatenated: a bad label is
			// listed three times (recorded: dupcauses). On a create the common validation runs
			// only when the strategy's passed, and then finds nothing: the strategy's name rule
			// (a DNS subdomain) is the stricter.
			common, err := h.validateObjectMeta(obj, old, pathSegmentName)
			if err != nil {
				return err
			}
			errs = append(common, errs...)
		}
		if len(errs) > 0 {
			return v.Invalid(obj, errs)
		}
		return nil
	}
	// The kind's rules read the stored version's shape (the internal one).
	gvk := ep.gvk
	if sg, differs := ep.storageGVK(); differs && ep.Subresource != "scale" {
		var err error
		if obj, err = h.inStorageVersion(obj); err != nil {
			return err
		}
		if old, err = h.inStorageVersion(old); err != nil {
			return err
		}
		gvk = sg
	}
	if ep.isCRDResource() && old == nil {
		if err := validateCRDCreate(obj); err != nil {
			return err
		}
	}
	dv := ep.declarativeStrategy()
	if old == nil && ep.Subresource == "" && validation.Modelled(gvk) {
		// rest.BeforeCreate: the strategy's Validate (which validates metadata with the kind's
		// name rule) first; only when it passes, the common ObjectMeta validation, with names
		// as path segments.
		if kind := validation.Validate(gvk, obj, validation.Options{Expressions: admission.ExpressionCompiler{}, Namespace: h.objectNamespace(obj)}); len(kind) > 0 {
			if dv {
				kind = kind.Filter()
			}
			return status.Invalid(h.invalidKind(), metaString(obj, "name"), kind)
		}
		errs, err := h.validateObjectMeta(obj, nil, pathSegmentName)
		if err != nil {
			return err
		}
		if dv {
			errs = errs.Filter()
		}
		if len(errs) > 0 {
			return status.Invalid(h.invalidKind(), metaString(obj, "name"), errs)
		}
		h.warnings = append(h.warnings, validation.Warnings(gvk, obj, nil, validation.Options{})...)
		return nil
	}
	// On an update, rest.BeforeUpdate's validateCommonFields checks the name as a path segment
	// (the kind's own rule is its ValidateUpdate's): a ClusterRole named clusterRole-1 is
	// updated. On a create of a kind not modelled, the DNS subdomain rule most strategies' Validate
	// apply stands in for the kind's.
	var nameRule func(string, bool) []string
	if old != nil {
		nameRule = pathSegmentName
	}
	errs, err := h.validateObjectMeta(obj, old, nameRule)
	if err != nil {
		return err
	}
	if ep.Subresource != "scale" {
		opts := validation.Options{Subresource: ep.Subresource, Expressions: admission.ExpressionCompiler{}, Namespace: h.objectNamespace(obj)}
		var kind field.ErrorList
		if old == nil {
			kind = validation.Validate(gvk, obj, opts)
		} else {
			kind = validation.ValidateUpdate(gvk, obj, old, opts)
		}
		if old != nil && ep.isCRDStrategy() {
			// ValidateCustomResourceDefinitionUpdate (and the /status one): the metadata update
			// rules, then the spec's.
			meta, err := h.strategyObjectMetaUpdate(obj, old)
			if err != nil {
				return err
			}
			kind = append(kind, meta...)
			if ep.Subresource == "" {
				spec, err := validateCRDUpdate(obj, old)
				if err != nil {
					return err
				}
				kind = append(kind, spec...)
			}
		}
		errs = append(errs, kind...)
		if dv {
			// A kind's own validation may include ObjectMeta's (as the strategies' Validate
			// functions do): k8s.io/kubernetes's declarative merge answers an error both
			// report once.
			errs = errs.Filter()
		}
	}
	if len(errs) > 0 {
		return status.Invalid(h.invalidKind(), metaString(obj, "name"), errs)
	}
	if ep.Subresource != "scale" {
		h.warnings = append(h.warnings, validation.Warnings(gvk, obj, old, validation.Options{Subresource: ep.Subresource})...)
	}
	return nil
}

// objectNamespace is validation.Options.Namespace for obj: its namespace as World stores it,
// read only when a strategy asks (a claim requesting admin access).
func (h *handler) objectNamespace(obj map[string]any) func() (map[string]any, error) {
	return func() (map[string]any, error) {
		name := metaString(obj, "namespace")
		if name == "" {
			return nil, nil
		}
		ns, err := h.w.Get(h.ctx, namespacesResource, "", name)
		if err != nil {
			return nil, worldError(err, "Get(namespaces)")
		}
		return ns, nil
	}
}

// invalidKind is the kind a 422 names: the endpoint's, or Scale's for /scale.
func (h *handler) invalidKind() status.GroupKind {
	if h.ep.Subresource == "scale" {
		return status.GroupKind{Group: "autoscaling", Kind: "Scale"}
	}
	gk := h.ep.groupKind()
	if h.ep.crd == nil && gk.Group == "events.k8s.io" && gk.Kind == "Event" {
		// The internal object of an events.k8s.io Event is core's Event, whose kind the 422
		// names (recorded: kinds3/event-v1-invalid).
		gk.Group = ""
	}
	return gk
}

// update is PUT on an object or a subresource (handlers/update.go, then store.Update).
func (h *handler) update() (Response, []Write, error) {
	ep := h.ep
	format, err := h.bodyFormat()
	if err != nil {
		return Response{}, nil, err
	}
	if err := limitBody(h.req.Body); err != nil {
		return Response{}, nil, err
	}
	o, err := h.parseWriteOptions("UpdateOptions", false)
	if err != nil {
		return Response{}, nil, err
	}
	if ep.Subresource == "scale" {
		return h.updateScale(format, o)
	}
	d, err := h.readBody(format, ep.gvk, o.level())
	if err != nil {
		return Response{}, nil, err
	}
	if format != codec.FormatYAML {
		h.document = h.req.Body
	}
	obj, err := h.typed(d.obj, d.duplicates, o.level(), bodyDecodeError(ep.gvk))
	h.document = nil
	if err != nil {
		return Response{}, nil, err
	}
	obj = ownTop(obj)
	if err := ensureNamespace(obj, ep.expectedNamespaceForResource()); err != nil {
		return Response{}, nil, err
	}
	if err := checkURLName(obj, ep.Name); err != nil {
		return Response{}, nil, err
	}
	live, err := h.live()
	if err != nil {
		return Response{}, nil, err
	}
	if live == nil {
		if ep.Subresource != "" || !allowCreateOnUpdate[ep.groupResource()] {
			return Response{}, nil, status.NotFound(ep.groupResource(), ep.Name)
		}
		delete(ownMeta(obj), "resourceVersion")
		if obj, err = h.manageUpdate(nil, obj, o); err != nil {
			return Response{}, nil, err
		}
		return h.finishCreate(obj, o, ep.Name)
	}
	// The storage precondition of an update: the uid the client sent.
	if uid := metaString(obj, "uid"); uid != "" {
		if err := versions.CheckPreconditions(ep.strategy, versions.Preconditions{UID: &uid}, live); err != nil {
			return Response{}, nil, asStatus(err)
		}
	}
	if obj, err = h.manageUpdate(live, obj, o); err != nil {
		return Response{}, nil, err
	}
	return h.finishUpdate(live, obj)
}

// live is the stored object the request names (converted to the request's version).
func (h *handler) live() (map[string]any, error) {
	ep := h.ep
	obj, err := h.w.Get(h.ctx, ep.Resource, ep.Namespace, ep.Name)
	if err != nil {
		return nil, worldError(err, "Get")
	}
	if obj == nil {
		return nil, nil
	}
	return h.toRequestVersion(obj)
}

// toRequestVersion converts a stored object to the request's version. Custom resources convert by
// their CRD's strategy (crconversion.go; a failure is the storage's corrupt-object 500); built-in objects of a resource stored in
// another version are converted (storageversion.go), others are taken as stored.
func (h *handler) toRequestVersion(obj map[string]any) (map[string]any, error) {
	want := h.ep.gvk.GroupVersion().String()
	if av, _ := obj["apiVersion"].(string); av == want {
		return obj, nil
	}
	if h.ep.crd == nil {
		if _, differs := h.ep.storageGVK(); !differs {
			return obj, nil
		}
		out, err := convertBuiltin(obj, h.ep.gvk)
		if err != nil {
			return nil, status.InternalError(fmt.Errorf("converting from the storage version: %w", err))
		}
		return out, nil
	}
	out, err := h.crFromStorage(obj)
	if err != nil {
		return nil, h.crReadError(obj, err)
	}
	return out, nil
}

// finishUpdate runs what follows the field manager on an update: mutating admission, optimistic
// concurrency, rest.BeforeUpdate (the strategy's PrepareForUpdate: generation; ValidateUpdate,
// ObjectMeta), validating admission and storage. A write that changes nothing is not stored.
func (h *handler) finishUpdate(live, obj map[string]any) (Response, []Write, error) {
	ep := h.ep
	mutated, err := h.mutate(admission.Update, obj, live, ep.Name)
	if err != nil {
		return Response{}, nil, err
	}
	obj = ownedTop(mutated, obj)
	if ep.Subresource == "" || ep.Subresource == "status" {
		d, err := versions.CheckPatch(ep.strategy, live, obj)
		if err != nil {
			return Response{}, nil, asStatus(err)
		}
		if d.Unconditional {
			ownMeta(obj)["resourceVersion"] = d.ResourceVersion
		}
	} else {
		ownMeta(obj)["resourceVersion"] = metaString(live, "resourceVersion")
	}
	if h.isService() {
		if obj, err = h.serviceBegin(obj, live); err != nil {
			return Response{}, nil, err
		}
	}
	if err := h.beforeUpdate(obj, live); err != nil {
		return Response{}, nil, err
	}
	if h.prepare != nil {
		// The strategy's value reset, before the generation it decides (PrepareForUpdate).
		h.prepare.values.Apply(obj, live)
	}
	g, err := versions.NextGenerationFirst(ep.strategy, live, obj, ep.Subresource)
	if err != nil {
		var us *versions.UnknownSubresourceError
		if !errors.As(err, &us) {
			return Response{}, nil, status.BadRequest(err.Error())
		}
	} else {
		setGeneration(ownMeta(obj), g.New)
	}
	if ep.crd == nil && ep.Subresource != "scale" {
		// The kind's own PrepareForUpdate effects, after the generation is decided as the
		// strategies decide it first.
		obj = validation.PrepareForUpdate(ep.gvk, obj, live, validation.Options{Subresource: ep.Subresource, Now: h.req.Now})
		if ep.isCRDResource() {
			obj = prepareCRDUpdate(obj, live)
		}
	}
	if h.prepare != nil {
		if err := apply.ValidateUpdate(h.prepare.validate, obj, live); err != nil {
			return Response{}, nil, err
		}
	}
	if err := h.validateWrite(obj, live); err != nil {
		return Response{}, nil, err
	}
	h.canonicalize(obj)
	if h.prepare != nil {
		// IgnoreManagedFieldsTimestampsTransformer, after rest.BeforeUpdate.
		obj = apply.KeepTimesOnNoop(obj, live)
	}
	if err := h.validate(admission.Update, obj, live, ep.Name); err != nil {
		return Response{}, nil, err
	}
	if deletedByUpdate(obj, live) {
		// The store deletes an object whose last finalizer an update removes once its deletion
		// was requested (genericregistry's ShouldDeleteDuringUpdate, then deleteWithoutFinalizers):
		// the client gets the object it sent, watchers the last stored state DELETED. A
		// Service's update reverts its allocation first; its AfterDelete releases the deleted
		// Service's cluster IPs after.
		resp, err := h.respond(200, h.responseObject(obj))
		if h.dryRun || err != nil {
			return resp, nil, err
		}
		writes := h.revertWrites()
		writes = append(writes, Write{Delete: true, Resource: ep.Resource, Namespace: metaString(live, "namespace"), Name: metaString(live, "name"), Object: live})
		if h.isServiceResource() {
			released, err := h.releaseService(live)
			if err != nil {
				return Response{}, nil, err
			}
			writes = append(writes, released...)
		}
		return resp, writes, nil
	}
	if h.svc != nil && len(h.svc.release) > 0 {
		// The allocators' Commit, before the store writes the Service (in GuaranteedUpdate's
		// tryUpdate): the released cluster IPs' IPAddresses are deleted.
		released, err := h.releaseIPs(h.svc.release)
		if err != nil {
			return Response{}, nil, err
		}
		h.svc.created = append(h.svc.created, released...)
		h.svc.release = nil
	}
	if value.Equal(obj, live) {
		// GuaranteedUpdate writes nothing when the bytes do not change.
		resp, err := h.respond(200, h.responseObject(obj))
		return h.withServiceWrites(resp, nil, err)
	}
	return h.withServiceWrites(h.store(obj, 200))
}

var errNoScale = fmt.Errorf("no scale subresource")

// deletedByUpdate is genericregistry's ShouldDeleteDuringUpdate: the update leaves no finalizer on
// an object whose deletion was requested, with no grace period left (deletionGracePeriodSeconds
// 0 or unset).
func deletedByUpdate(obj, live map[string]any) bool {
	if fs, _ := metaOf(obj)["finalizers"].([]any); len(fs) > 0 {
		return false
	}
	// The namespace storage's own ShouldDeleteDuringUpdate also waits for spec.finalizers to
	// be empty (pkg/registry/core/namespace/storage): a terminating namespace the namespace
	// controller has not finalized stays through any update of it or its status.
	if obj["kind"] == "Namespace" && obj["apiVersion"] == "v1" {
		if spec, _ := obj["spec"].(map[string]any); spec != nil {
			if fs, _ := spec["finalizers"].([]any); len(fs) > 0 {
				return false
			}
		}
	}
	lm := metaOf(live)
	if lm["deletionTimestamp"] == nil {
		return false
	}
	g, ok := lm["deletionGracePeriodSeconds"].(int64)
	return !ok || g == 0
}

// readBackDefaults is what decoding the created object back from storage adds to it, where the
// strategy reset a field its version's defaults fill: a PersistentVolumeClaim's and a
// PersistentVolume's status.phase is Pending (SetDefaults_PersistentVolumeClaim and
// SetDefaults_PersistentVolume, run on the stored bytes after PrepareForCreate emptied the
// status; recorded: kinds/pvc-create). obj is the handler's own.
func readBackDefaults(ep *endpoint, obj map[string]any) map[string]any {
	if ep.gvk.Group != "" || ep.Subresource != "" || (ep.gvk.Kind != "PersistentVolumeClaim" && ep.gvk.Kind != "PersistentVolume") {
		return obj
	}
	st, _ := obj["status"].(map[string]any)
	if p, _ := st["phase"].(string); p != "" {
		return obj
	}
	c := make(map[string]any, len(st)+1)
	for k, v := range st {
		c[k] = v
	}
	c["phase"] = "Pending"
	obj["status"] = c
	return obj
}

// isServiceResource reports whether the endpoint is core Services or their status, whose
// store releases a deleted Service's allocations (AfterDelete).
func (h *handler) isServiceResource() bool {
	return h.ep.crd == nil && h.ep.gvk.Group == "" && h.ep.gvk.Kind == "Service" && (h.ep.Subresource == "" || h.ep.Subresource == "status")
}

// isService reports whether the endpoint is the main resource of core Services, whose REST
// allocates cluster IPs and node ports (serviceBegin).
func (h *handler) isService() bool {
	return h.ep.crd == nil && h.ep.gvk.Group == "" && h.ep.gvk.Kind == "Service" && h.ep.Subresource == ""
}

// validateAccessReview is what an access review's REST Create checks first: the review as the
// create handler hands it over (its namespace the URL's, nothing else filled in) through
// ValidateAccessReview, refused as `.authorization.k8s.io "" is invalid` (the internal object's
// kind is empty; recorded from kube-apiserver 1.37). A namespace that conflicts with the URL's
// is left to the handler's own check, which comes before. Other kinds pass.
func (h *handler) validateAccessReview(obj map[string]any) error {
	if h.ep.gvk.Group != "authorization.k8s.io" {
		return nil
	}
	review := ownTop(obj)
	if ensureNamespace(review, h.ep.expectedNamespaceForResource()) != nil {
		return nil
	}
	if errs := validation.ValidateAccessReview(h.ep.gvk, review); len(errs) > 0 {
		return status.Invalid(status.GroupKind{Group: h.ep.gvk.Group}, "", errs)
	}
	return nil
}
