package admission

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/patch"
	"github.com/writepath/writepath/status"
)

// Config is an admission chain's configuration: Go plugins, the admission
// configuration objects (MutatingWebhookConfiguration,
// ValidatingWebhookConfiguration, ValidatingAdmissionPolicy,
// MutatingAdmissionPolicy and their bindings, all
// admissionregistration.k8s.io/v1), the param objects policies
// refer to, the namespaces selectors look at, and the effects.
type Config struct {
	// Mutators run in order after the built-in mutating steps and before
	// mutating webhooks.
	Mutators []Mutator
	// Validate is the step between mutating and validating admission.
	Validate ValidateFunc
	// Validators run in order before validating policies and webhooks.
	Validators []Validator
	Builtins   Builtins
	// Objects are admission configuration objects; other kinds are refused.
	Objects []map[string]any
	// Params are the objects paramRefs select from, and Namespaces the
	// namespaces that exist (by metadata.name), when Lookup is nil: Admit
	// reads them through StaticLookup(Namespaces, Params).
	Params     []map[string]any
	Namespaces []map[string]any
	// Lookup gives the namespaces and params at request time instead (the
	// caller's store; Mutate and Validate may be given another per request).
	// It may not be set with Namespaces or Params.
	Lookup Lookup
	// Client calls webhooks; nil uses HTTPSClient.
	Client WebhookClient
	// Authorizer answers the `authorizer` variable of policies; nil leaves it
	// undefined.
	Authorizer cel.Authorizer
	Env        Env
	// Versions are the CRDs served and the version converter (matchPolicy
	// Equivalent, ApplyConfiguration mutations of custom resources).
	Versions Versions
}

// Chain is a compiled admission configuration. It is safe for concurrent
// use; Admit does not modify the Chain.
type Chain struct {
	cfg Config
	// lookup is where namespaces and params are read: Config's, or the one
	// a Mutate or Validate call gives (on a shallow copy of the Chain).
	lookup     Lookup
	vaps       []*vap
	maps       []*mapPolicy
	mutating   []*webhook
	validating []*webhook
}

// New compiles cfg: expressions are compiled once here and reused by every
// Admit. Objects of an unknown kind are an error; a policy whose expressions do
// not compile is not: the apiserver stores it and fails requests it matches as
// its failurePolicy says, and so does Admit.
func New(cfg Config) (*Chain, error) {
	c := &Chain{cfg: cfg, lookup: cfg.Lookup}
	if c.lookup == nil {
		c.lookup = StaticLookup(cfg.Namespaces, cfg.Params)
	} else if len(cfg.Namespaces) > 0 || len(cfg.Params) > 0 {
		return nil, errors.New("admission: Config.Lookup is set with Config.Namespaces or Config.Params")
	}
	type pending struct {
		b      *binding
		policy string
	}
	byName := map[string]*vap{}
	mapByName := map[string]*mapPolicy{}
	var mapBindings []pending
	var bindings []pending
	for i, o := range cfg.Objects {
		gv := getString(o, "apiVersion")
		kind := getString(o, "kind")
		if gv != "admissionregistration.k8s.io/v1" {
			return nil, fmt.Errorf("objects[%d]: unsupported apiVersion %q (want admissionregistration.k8s.io/v1)", i, gv)
		}
		switch kind {
		case "ValidatingAdmissionPolicy":
			p, err := compileVAP(o)
			if err != nil {
				return nil, fmt.Errorf("objects[%d]: %w", i, err)
			}
			byName[p.name] = p
			c.vaps = append(c.vaps, p)
		case "ValidatingAdmissionPolicyBinding":
			b, pol, err := parseBinding(o)
			if err != nil {
				return nil, fmt.Errorf("objects[%d]: %w", i, err)
			}
			bindings = append(bindings, pending{b, pol})
		case "MutatingAdmissionPolicy":
			p, err := compileMAP(o)
			if err != nil {
				return nil, fmt.Errorf("objects[%d]: %w", i, err)
			}
			mapByName[p.name] = p
			c.maps = append(c.maps, p)
		case "MutatingAdmissionPolicyBinding":
			b, pol, err := parseBinding(o)
			if err != nil {
				return nil, fmt.Errorf("objects[%d]: %w", i, err)
			}
			mapBindings = append(mapBindings, pending{b, pol})
		case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
			hooks, err := parseWebhooks(o, kind == "MutatingWebhookConfiguration")
			if err != nil {
				return nil, fmt.Errorf("objects[%d]: %w", i, err)
			}
			if kind == "MutatingWebhookConfiguration" {
				c.mutating = append(c.mutating, hooks...)
			} else {
				c.validating = append(c.validating, hooks...)
			}
		default:
			return nil, fmt.Errorf("objects[%d]: unsupported kind %q", i, kind)
		}
	}
	for _, pb := range bindings {
		if p := byName[pb.policy]; p != nil {
			p.bindings = append(p.bindings, pb.b)
		}
	}
	for _, pb := range mapBindings {
		if p := mapByName[pb.policy]; p != nil {
			p.bindings = append(p.bindings, pb.b)
		}
	}
	sort.SliceStable(c.maps, func(i, j int) bool { return c.maps[i].name < c.maps[j].name })
	for _, p := range c.maps {
		sort.SliceStable(p.bindings, func(i, j int) bool { return p.bindings[i].name < p.bindings[j].name })
	}
	// The apiserver lists policies, bindings and webhook configurations by name.
	sort.SliceStable(c.vaps, func(i, j int) bool { return c.vaps[i].name < c.vaps[j].name })
	for _, p := range c.vaps {
		sort.SliceStable(p.bindings, func(i, j int) bool { return p.bindings[i].name < p.bindings[j].name })
	}
	sort.SliceStable(c.mutating, func(i, j int) bool { return c.mutating[i].config < c.mutating[j].config })
	sort.SliceStable(c.validating, func(i, j int) bool { return c.validating[i].config < c.validating[j].config })
	return c, nil
}

// Admit runs req through the chain in kube-apiserver's order: the built-in
// mutating steps (NamespaceLifecycle), Go mutators, MutatingAdmissionPolicies
// and mutating webhooks (then once more those with reinvocationPolicy IfNeeded
// if a later one changed the object), cfg.Validate (registry.ValidateObjectMeta
// for ObjectMeta), then Go validators, ValidatingAdmissionPolicies and
// validating webhooks. The registry's steps around it (system fields,
// concurrency) are registry.Admit's. A rejection is returned as a *status.Error worded
// as the apiserver words it. req is not modified.
//
// The Result's Warnings are those the apiserver's response would carry, on
// success and on rejection alike (ResponseWarnings of RawWarnings).
func (c *Chain) Admit(ctx context.Context, req Request) (Result, error) {
	res, err := c.admit(ctx, req)
	return res.finish(), err
}

// Mutate is the mutating phase alone, as the apiserver's handler runs it
// after defaulting: NamespaceLifecycle (when Builtins has it), Go mutators,
// MutatingAdmissionPolicies and mutating webhooks with their reinvocation.
// The registry's steps and Config.Validate are the caller's. Namespaces and params are read
// through lk (nil: the Config's). Result.Object is the mutated object (a
// fresh value). req is not modified.
func (c *Chain) Mutate(ctx context.Context, req Request, lk Lookup) (Result, error) {
	c = c.with(lk)
	res := Result{}
	if err := checkOperation(req.Operation); err != nil {
		return res.finish(), err
	}
	obj, copied, err := c.mutatingPhase(ctx, &req, &res)
	if err == nil && obj != nil && !copied {
		obj, err = value.DeepCopyMap(obj)
		if err != nil {
			err = status.BadRequest(err.Error())
		}
	}
	if err != nil {
		return res.finish(), err
	}
	res.Object = obj
	return res.finish(), nil
}

// Validate is the validating phase alone, as the apiserver's handler runs it
// after the object's validation: Go validators, ValidatingAdmissionPolicies
// and validating webhooks, on req.Object as mutated and validated.
// Namespaces and params are read through lk (nil: the Config's).
// Result.Object is nil: validating admission does not change the object.
// req is not modified.
func (c *Chain) Validate(ctx context.Context, req Request, lk Lookup) (Result, error) {
	c = c.with(lk)
	res := Result{}
	if err := checkOperation(req.Operation); err != nil {
		return res.finish(), err
	}
	err := c.validatingPhase(ctx, &req, req.Object, &res)
	return res.finish(), err
}

// with is c reading namespaces and params through lk (c itself when lk is
// nil). The copy is shallow: what New compiled is shared, not redone.
func (c *Chain) with(lk Lookup) *Chain {
	if lk == nil {
		return c
	}
	cc := *c
	cc.lookup = lk
	return &cc
}

// finish turns the warnings the steps added into the response's.
func (r Result) finish() Result {
	r.RawWarnings = r.Warnings
	r.Warnings = ResponseWarnings(r.RawWarnings)
	return r
}

func checkOperation(op Operation) error {
	switch op {
	case Create, Update, Delete, Connect:
		return nil
	}
	return status.BadRequest(fmt.Sprintf("unsupported admission operation %q", op))
}

func (c *Chain) admit(ctx context.Context, req Request) (Result, error) {
	res := Result{}
	if err := checkOperation(req.Operation); err != nil {
		return res, err
	}
	obj, copied, err := c.mutatingPhase(ctx, &req, &res)
	if err != nil {
		return res, err
	}
	if c.cfg.Validate != nil && obj != nil && (req.Operation == Create || req.Operation == Update) {
		w, err := c.cfg.Validate(ctx, req, obj)
		res.Warnings = append(res.Warnings, w...)
		if err != nil {
			return res, err
		}
	}
	if err := c.validatingPhase(ctx, &req, obj, &res); err != nil {
		return res, err
	}
	if obj != nil && !copied {
		if obj, err = value.DeepCopyMap(obj); err != nil {
			return res, status.BadRequest(err.Error())
		}
	}
	res.Object = obj
	return res, nil
}

// mutatingPhase runs the mutating phase on a copy of req.Object (copied is false
// when nothing could change it and req.Object is returned as is).
func (c *Chain) mutatingPhase(ctx context.Context, req *Request, res *Result) (obj map[string]any, copied bool, err error) {
	// The object is copied before the first step that may change it; when
	// nothing can (no mutating step configured), the request's object is only
	// read and the admitted object is copied at the end.
	obj = req.Object
	b := c.cfg.Builtins
	mutates := len(c.cfg.Mutators) > 0 || len(c.maps) > 0 || len(c.mutating) > 0
	if obj != nil && mutates {
		if obj, err = value.DeepCopyMap(req.Object); err != nil {
			return nil, false, status.BadRequest(err.Error())
		}
		copied = true
	}
	if b.NamespaceLifecycle {
		if err := c.namespaceLifecycle(req, obj); err != nil {
			return nil, copied, err
		}
	}
	for _, m := range c.cfg.Mutators {
		if obj, err = c.runMutator(ctx, m, req, obj, res); err != nil {
			return nil, copied, err
		}
	}
	if obj, err = c.runReinvocable(ctx, req, obj, res); err != nil {
		return nil, copied, err
	}
	return obj, copied, nil
}

// validatingPhase runs the validating phase on obj: Go validators,
// ValidatingAdmissionPolicies, validating webhooks.
func (c *Chain) validatingPhase(ctx context.Context, req *Request, obj map[string]any, res *Result) error {
	for _, v := range c.cfg.Validators {
		a := Attributes{Request: *req}
		a.Object = obj
		w, err := v.Validate(ctx, a)
		res.Warnings = append(res.Warnings, w...)
		if err != nil {
			return pluginError(req, obj, err)
		}
	}
	if err := c.runVAPs(ctx, req, obj, res); err != nil {
		return err
	}
	return c.runValidatingWebhooks(ctx, req, obj, res)
}

func (c *Chain) runMutator(ctx context.Context, m Mutator, req *Request, obj map[string]any, res *Result) (map[string]any, error) {
	a := Attributes{Request: *req}
	in, err := value.DeepCopyMap(obj)
	if err != nil {
		return nil, status.InternalError(err)
	}
	a.Object = in
	out, err := m.Admit(ctx, a)
	if err != nil {
		return nil, pluginError(req, obj, err)
	}
	if out == nil {
		return obj, nil
	}
	if err := validObject(out); err != nil {
		return nil, status.InternalError(fmt.Errorf("admission plugin %q returned an invalid object: %w", m.Name(), err))
	}
	if !value.Equal(obj, out) {
		p, err := patch.CreateJSONPatch(obj, out)
		if err != nil {
			return nil, status.InternalError(err)
		}
		res.Patches = append(res.Patches, Mutation{Mutator: m.Name(), Patch: p})
		return value.DeepCopyMap(out)
	}
	return obj, nil
}

// pluginError wraps a plugin's error as the admission chain reports it: a
// status error as is, anything else as admission.NewForbidden does.
func pluginError(req *Request, obj map[string]any, err error) error {
	var st *status.Error
	if errors.As(err, &st) {
		return st
	}
	return forbidden(req, obj, err)
}

func (r *Result) addAudit(k, v string) {
	if r.AuditAnnotations == nil {
		r.AuditAnnotations = map[string]string{}
	}
	if _, ok := r.AuditAnnotations[k]; ok {
		return
	}
	r.AuditAnnotations[k] = v
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func valueEqual(a, b map[string]any) bool { return value.Equal(a, b) }

// runReinvocable runs MutatingAdmissionPolicies then mutating webhooks, and,
// when the object changed, once more the policies and webhooks with
// reinvocationPolicy IfNeeded that ran before the change (the apiserver's
// reinvocation round).
func (c *Chain) runReinvocable(ctx context.Context, req *Request, obj map[string]any, res *Result) (map[string]any, error) {
	maps := &mapReinvocation{}
	hooks := &hookState{invokedAt: map[int]int{}, lastChange: -1}
	o1, mapReinvoke, err := c.runMAPs(ctx, req, obj, res, 0, maps)
	if err != nil {
		return nil, err
	}
	o2, hookChanged, err := c.runMutatingWebhooks(ctx, req, o1, res, 0, hooks)
	if err != nil {
		return nil, err
	}
	if !mapReinvoke && !hookChanged {
		return o2, nil
	}
	o3, _, err := c.runMAPs(ctx, req, o2, res, 1, maps)
	if err != nil {
		return nil, err
	}
	if !valueEqual(o2, o3) {
		// The webhooks' dispatcher sees the object changed since their output.
		hooks.forceAll = true
	}
	o4, _, err := c.runMutatingWebhooks(ctx, req, o3, res, 1, hooks)
	return o4, err
}
