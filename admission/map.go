package admission

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/patch"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// Type names of MutatingAdmissionPolicy expressions (k8s.io/apiserver/pkg/cel/mutation).
const (
	objectTypeName    = "Object"
	jsonPatchTypeName = "JSONPatch"
)

// mutationProvider resolves Object, Object.<path> and JSONPatch as the
// apiserver's DynamicTypeResolver does: Object types accept any field (of
// dynamic type); JSONPatch has op, path, from (strings) and value.
type mutationProvider struct{ types.Provider }

func isObjectTypeName(n string) bool {
	return n == objectTypeName || strings.HasPrefix(n, objectTypeName+".")
}

func (p *mutationProvider) FindStructType(name string) (*types.Type, bool) {
	if isObjectTypeName(name) || name == jsonPatchTypeName {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *mutationProvider) FindStructFieldNames(name string) ([]string, bool) {
	if isObjectTypeName(name) {
		return nil, true
	}
	if name == jsonPatchTypeName {
		return []string{"op", "from", "path", "value"}, true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *mutationProvider) FindStructFieldType(name, f string) (*types.FieldType, bool) {
	if isObjectTypeName(name) {
		return &types.FieldType{Type: types.DynType,
			IsSet: func(t any) bool {
				m, ok := t.(map[string]any)
				if !ok {
					return false
				}
				_, set := m[f]
				return set
			},
			GetFrom: func(t any) (any, error) {
				if m, ok := t.(map[string]any); ok {
					return m[f], nil
				}
				return nil, fmt.Errorf("cannot get field %q", f)
			}}, true
	}
	if name == jsonPatchTypeName {
		// Every field name resolves, as the apiserver's JSONPatchType.Field: one that is not
		// op, from, path or value has no type (JSONPatch{nope: 1} fails type checking with
		// "expected type of field 'nope' is ''").
		var t *types.Type
		switch f {
		case "op", "from", "path":
			t = types.StringType
		case "value":
			t = types.DynType
		}
		return &types.FieldType{Type: t}, true
	}
	return p.Provider.FindStructFieldType(name, f)
}

func (p *mutationProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if isObjectTypeName(name) {
		return &objectVal{typeName: name, fields: fields}
	}
	if name == jsonPatchTypeName {
		jp := &jsonPatchVal{}
		for k, v := range fields {
			switch k {
			case "op", "path", "from":
				s, ok := v.Value().(string)
				if !ok {
					return types.NewErr("unexpected type %T for JSONPatchType '%s' field", v.Value(), k)
				}
				switch k {
				case "op":
					jp.op = s
				case "path":
					jp.path = s
				default:
					jp.from = s
				}
			case "value":
				jp.val = v
			default:
				return types.NewErr("unexpected JSONPatchType field: %s", k)
			}
		}
		return jp
	}
	return p.Provider.NewValue(name, fields)
}

// objectVal is a value built with Object{...}.
type objectVal struct {
	typeName string
	fields   map[string]ref.Val
}

func (v *objectVal) ConvertToNative(t reflect.Type) (any, error) { return toNative(v) }
func (v *objectVal) ConvertToType(t ref.Type) ref.Val {
	if t.TypeName() == v.typeName {
		return v
	}
	if t == types.TypeType {
		return types.NewTypeTypeWithParam(types.NewObjectType(v.typeName))
	}
	return types.NewErr("unsupported conversion into %v", t)
}
func (v *objectVal) Equal(o ref.Val) ref.Val {
	ov, ok := o.(*objectVal)
	if !ok || ov.typeName != v.typeName {
		return types.False
	}
	a, e1 := toNative(v)
	b, e2 := toNative(ov)
	return types.Bool(e1 == nil && e2 == nil && value.Equal(a, b))
}
func (v *objectVal) Type() ref.Type { return types.NewObjectType(v.typeName) }
func (v *objectVal) Value() any {
	n, err := toNative(v)
	if err != nil {
		return types.WrapErr(err)
	}
	return n
}
func (v *objectVal) IsZeroValue() bool { return len(v.fields) == 0 }

// typeCheck is CheckTypeNamesMatchFieldPathNames.
func (v *objectVal) typeCheck(path []string) []error {
	var errs []error
	if want := strings.Join(path, "."); v.typeName != want {
		errs = append(errs, fmt.Errorf("unexpected type name %q, expected %q, which matches field name path from root Object type", v.typeName, want))
	}
	for _, k := range sortedValKeys(v.fields) {
		if ov, ok := v.fields[k].(*objectVal); ok {
			errs = append(errs, ov.typeCheck(append(append([]string{}, path...), k))...)
		}
	}
	return errs
}

func sortedValKeys(m map[string]ref.Val) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// jsonPatchVal is a value built with JSONPatch{...}.
type jsonPatchVal struct {
	op, path, from string
	val            ref.Val
}

func (p *jsonPatchVal) ConvertToNative(reflect.Type) (any, error) { return p, nil }
func (p *jsonPatchVal) ConvertToType(t ref.Type) ref.Val {
	if t.TypeName() == jsonPatchTypeName {
		return p
	}
	if t == types.TypeType {
		return types.NewTypeTypeWithParam(types.NewObjectType(jsonPatchTypeName))
	}
	return types.NewErr("unsupported type conversion to %v", t)
}
func (p *jsonPatchVal) Equal(o ref.Val) ref.Val {
	q, ok := o.(*jsonPatchVal)
	return types.Bool(ok && p.op == q.op && p.path == q.path && p.from == q.from &&
		((p.val == nil && q.val == nil) || (p.val != nil && q.val != nil && p.val.Equal(q.val) == types.True)))
}
func (p *jsonPatchVal) Type() ref.Type { return types.NewObjectType(jsonPatchTypeName) }
func (p *jsonPatchVal) Value() any     { return p }

// convertMembers converts an Object, a list or a map with conv for each
// member (an empty list is list, nil or empty as the caller's conversion has
// it); ok is false for any other value.
func convertMembers(v ref.Val, conv func(ref.Val) (any, error), list []any) (out any, ok bool, err error) {
	if ov, isObj := v.(*objectVal); isObj {
		m := make(map[string]any, len(ov.fields))
		for k, f := range ov.fields {
			n, err := conv(f)
			if err != nil {
				return nil, true, fmt.Errorf("fail to convert field %q: %w", k, err)
			}
			m[k] = n
		}
		return m, true, nil
	}
	if l, isList := v.(traits.Lister); isList {
		for it := l.Iterator(); it.HasNext() == types.True; {
			n, err := conv(it.Next())
			if err != nil {
				return nil, true, err
			}
			list = append(list, n)
		}
		return list, true, nil
	}
	if mv, isMap := v.(traits.Mapper); isMap {
		m := map[string]any{}
		for it := mv.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			ks, isString := k.Value().(string)
			if !isString {
				return nil, true, fmt.Errorf("map key %q is of type %T, not string", k, k)
			}
			n, err := conv(mv.Get(k))
			if err != nil {
				return nil, true, err
			}
			m[ks] = n
		}
		return m, true, nil
	}
	return nil, false, nil
}

// toNative converts a CEL value into the object model.
func toNative(v ref.Val) (any, error) {
	if out, ok, err := convertMembers(v, toNative, []any{}); ok {
		return out, err
	}
	switch x := v.(type) {
	case types.Null:
		return nil, nil
	case types.Bool:
		return bool(x), nil
	case types.Int:
		return int64(x), nil
	case types.Uint:
		return int64(x), nil
	case types.Double:
		return float64(x), nil
	case types.String:
		return string(x), nil
	case *types.Err:
		return nil, x
	}
	// Other values (timestamps, durations, bytes) as JSON encodes them.
	n, err := v.ConvertToNative(reflect.TypeOf((*any)(nil)).Elem())
	if err != nil {
		return nil, err
	}
	b, err := codec.EncodeJSON(n)
	if err != nil {
		return nil, err
	}
	return codec.DecodeValue(b)
}

var escapeKeyReplacer = strings.NewReplacer("~", "~0", "/", "~1")

var (
	mutEnvOnce sync.Once
	mutEnvs    [2]*celgo.Env
	mutEnvErr  error
)

// mutationEnv is admissionEnv with the patch types and jsonpatch.escapeKey.
func mutationEnv(hasParams bool) (*celgo.Env, error) {
	mutEnvOnce.Do(func() {
		for i, p := range []bool{false, true} {
			base, err := admissionEnv(p)
			if err != nil {
				mutEnvErr = err
				return
			}
			mutEnvs[i], mutEnvErr = withPatchTypes(base)
			if mutEnvErr != nil {
				return
			}
		}
	})
	if mutEnvErr != nil {
		return nil, mutEnvErr
	}
	if hasParams {
		return mutEnvs[1], nil
	}
	return mutEnvs[0], nil
}

// withPatchTypes extends env with the MutatingAdmissionPolicy types (Object,
// JSONPatch) and jsonpatch.escapeKey (plugin/cel's hasPatchTypes).
func withPatchTypes(env *celgo.Env) (*celgo.Env, error) {
	return env.Extend(
		celgo.CustomTypeProvider(&mutationProvider{Provider: env.CELTypeProvider()}),
		celgo.Function("jsonpatch.escapeKey", celgo.Overload("string_jsonpatch_escapeKey_string",
			[]*celgo.Type{celgo.StringType}, celgo.StringType,
			celgo.UnaryBinding(func(a ref.Val) ref.Val {
				s, ok := a.(types.String)
				if !ok {
					return types.MaybeNoSuchOverloadErr(a)
				}
				return types.String(escapeKeyReplacer.Replace(string(s)))
			}))),
	)
}

type mutation struct {
	apply bool
	prog  program
}

// mapPolicy is a compiled MutatingAdmissionPolicy.
type mapPolicy struct {
	policyCore
	reinvoke  bool
	mutations []mutation
	bindings  []*binding
}

func compileMAP(obj map[string]any) (*mapPolicy, error) {
	spec := getMap(obj, "spec")
	p := &mapPolicy{reinvoke: getString(spec, "reinvocationPolicy") == "IfNeeded"}
	pc, _, err := compileCore(getString(obj, "metadata", "name"), spec)
	if err != nil {
		return nil, err
	}
	p.policyCore = pc
	p.params.mutating = true
	env, err := mutationEnv(pc.paramKind != nil)
	if err != nil {
		return nil, err
	}
	// Variables are compiled in the mutation environment too (Object and
	// JSONPatch are usable there).
	var vars []namedExpr
	vs, _ := spec["variables"].([]any)
	for _, v := range vs {
		vm, _ := v.(map[string]any)
		vars = append(vars, namedExpr{Name: getString(vm, "name"), Expr: getString(vm, "expression")})
	}
	c, progs, err := newCompilerIn(env, vars)
	if err != nil {
		return nil, err
	}
	p.varProgs = progs
	p.conditions = p.conditions[:0]
	mcs, _ := spec["matchConditions"].([]any)
	for _, x := range mcs {
		m, _ := x.(map[string]any)
		p.conditions = append(p.conditions, namedProgram{name: getString(m, "name"),
			prog: c.compile(getString(m, "expression"), []*celgo.Type{celgo.BoolType})})
	}
	ms, _ := spec["mutations"].([]any)
	for _, x := range ms {
		m, _ := x.(map[string]any)
		switch getString(m, "patchType") {
		case "ApplyConfiguration":
			p.mutations = append(p.mutations, mutation{apply: true,
				prog: c.compile(getString(m, "applyConfiguration", "expression"), []*celgo.Type{types.NewObjectType(objectTypeName)})})
		case "JSONPatch":
			p.mutations = append(p.mutations, mutation{
				prog: c.compile(getString(m, "jsonPatch", "expression"), []*celgo.Type{types.NewListType(types.NewObjectType(jsonPatchTypeName))})})
		default:
			p.configError = fmt.Sprintf("unsupported patchType %q", getString(m, "patchType"))
		}
	}
	return p, nil
}

// policyError is generic.PolicyError.
type policyError struct {
	policy, binding string
	msg             string
	reason          string
}

func (e policyError) Error() string {
	if e.binding != "" {
		return fmt.Sprintf("policy '%s' with binding '%s' denied request: %s", e.policy, e.binding, e.msg)
	}
	return fmt.Sprintf("policy %q denied request: %s", e.policy, e.msg)
}

// invocation is one (policy, binding, param) the mutating policy plugin runs,
// with the kind and resource the policy matched the request as.
type invocation struct {
	p     *mapPolicy
	b     *binding
	param map[string]any
	as    matchedAs
}

// mapVersion is one VersionedAttributes of the mutating policy dispatcher: the
// request's objects at one kind, converted from the request's objects when the
// dispatch starts, and whether a mutation has been applied to it.
type mapVersion struct {
	req   Request
	dirty bool
}

// mapInvocations is the generic policy dispatcher's matching for MAPs. The
// versioned objects of every matched kind are made before any policy runs
// (the dispatcher pre-warms them), so a policy matched through an equivalent
// kind sees the object as the request had it, not as the policies before it
// left it.
func (c *Chain) mapInvocations(req *Request, obj map[string]any, errs *[]policyError, failPolicies *[]string, versions map[schema.GroupVersionKind]*mapVersion) []invocation {
	r := *req
	r.Object = obj
	var out []invocation
	add := func(p *mapPolicy, b *binding, err string) {
		pe := policyError{policy: p.name, msg: "failed to configure policy: " + err}
		if b != nil {
			pe.binding, pe.msg = b.name, "failed to configure binding: "+err
		}
		*errs = append(*errs, pe)
		*failPolicies = append(*failPolicies, p.failPolicy)
	}
	for _, p := range c.maps {
		ok, as, err := p.match.matchesAs(&r, c)
		if err != nil {
			add(p, nil, err.Error())
			continue
		}
		if !ok {
			continue
		}
		if p.configError != "" {
			add(p, nil, p.configError)
			continue
		}
		for _, b := range p.bindings {
			if b.match != nil {
				ok, err := b.match.matches(&r, c)
				if err != nil {
					add(p, b, err.Error())
					continue
				}
				if !ok {
					continue
				}
			}
			if _, ok := versions[as.kind]; !ok {
				v := &mapVersion{req: r}
				if err := c.versioned(&v.req, as); err != nil {
					add(p, nil, err.Error())
					continue
				}
				versions[as.kind] = v
			}
			params, none, err := c.params(p.paramKind, b.paramRef, req.Namespace)
			if err != nil {
				add(p, b, err.Error())
				continue
			}
			if none {
				params = []map[string]any{nil}
			}
			for _, pm := range params {
				out = append(out, invocation{p: p, b: b, param: pm, as: as})
			}
		}
	}
	return out
}

// mutate runs one mutation on obj.
func (c *Chain) mutate(ctx context.Context, inv invocation, m mutation, req *Request, obj map[string]any) (map[string]any, error) {
	if m.prog.Err != "" {
		return nil, errors.New(m.prog.Err)
	}
	act := c.newActivation(ctx, &inv.p.policyCore, c.valuesAt(req, obj, inv.as.kind, inv.as.resource), inv.param)
	budget := int64(RuntimeCELCostBudget)
	r, err := eval(ctx, m.prog, act, &budget)
	if err != nil {
		return nil, err
	}
	if r.err != "" {
		return nil, errors.New(r.err)
	}
	if m.apply {
		ov, ok := r.val.(*objectVal)
		if !ok {
			return nil, fmt.Errorf("unsupported return type from ApplyConfiguration expression: %v", r.val.Type())
		}
		if errs := ov.typeCheck([]string{ov.typeName}); len(errs) > 0 {
			return nil, fmt.Errorf("type mismatch: %w", errors.Join(errs...))
		}
		n, err := applyNative(ov)
		if err != nil {
			return nil, fmt.Errorf("invalid return type: %T", r.val)
		}
		pt, err := c.applyType(inv.as.kind)
		if err != nil {
			return nil, fmt.Errorf("error applying patch: %w", err)
		}
		out, err := applyStructuredMergeDiff(pt, obj, n.(map[string]any))
		if err != nil {
			return nil, fmt.Errorf("error applying patch: %w", err)
		}
		return out, nil
	}
	l, ok := r.val.(traits.Lister)
	if !ok {
		return nil, fmt.Errorf("type mismatch: JSONPatchType.expression should evaluate to array")
	}
	var ops []any
	for it := l.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		jp, ok := v.(*jsonPatchVal)
		if !ok {
			return nil, fmt.Errorf("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch, got element of %T", v)
		}
		op := map[string]any{"op": jp.op, "path": jp.path}
		if jp.from != "" {
			op["from"] = jp.from
		}
		if jp.val != nil {
			if ov, ok := jp.val.(*objectVal); ok {
				if errs := ov.typeCheck([]string{ov.typeName}); len(errs) > 0 {
					return nil, fmt.Errorf("type mismatch: %w", errors.Join(errs...))
				}
			}
			n, err := jsonPatchValue(jp.val)
			if err != nil {
				return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
			}
			op["value"] = n
		}
		ops = append(ops, op)
	}
	body, err := codec.EncodeJSON(ops)
	if err != nil {
		return nil, err
	}
	res, err := patch.ApplyJSONPatch(obj, body, patch.Options{MaxOperations: -1, MaxCopyBytes: -1, MaxRequestBytes: -1})
	if err != nil {
		var pe *patch.Error
		if errors.As(err, &pe) && pe.Cause != nil {
			if strings.Contains(pe.Cause.Error(), "test failed") {
				return obj, nil
			}
			return nil, fmt.Errorf("JSON Patch: %w", pe.Cause)
		}
		return nil, fmt.Errorf("JSON Patch: %w", err)
	}
	return res.Object, nil
}

// dispatchMAPs is the mutating policy dispatcher's loop over the
// invocations: each runs on the object of the kind it matched as; the last
// object a mutation was given, if a mutation was applied to it, is converted
// back to the request's kind.
func (c *Chain) dispatchMAPs(ctx context.Context, req *Request, obj map[string]any, res *Result, round int, st *mapReinvocation,
	invs []invocation, versions map[schema.GroupVersionKind]*mapVersion, errs *[]policyError, fps *[]string) (map[string]any, bool, error) {
	should := false
	var last *mapVersion
	var lastAs matchedAs
	for _, inv := range invs {
		key := inv.p.name + "/" + inv.b.name + "/" + getString(inv.param, "metadata", "namespace") + "/" + getString(inv.param, "metadata", "name")
		v := versions[inv.as.kind]
		if len(inv.p.conditions) > 0 {
			// Match conditions see the request's resource (the matched kind).
			act := c.newActivation(ctx, &inv.p.policyCore, c.valuesAt(&v.req, v.req.Object, inv.as.kind, req.Resource), inv.param)
			ok, msg := inv.p.matchConditions(ctx, act)
			if msg != "" {
				*errs = append(*errs, policyError{policy: inv.p.name, binding: inv.b.name, msg: msg, reason: string(status.ReasonInvalid)})
				*fps = append(*fps, inv.p.failPolicy)
				continue
			}
			if !ok {
				continue
			}
		}
		if round == 1 && !st.reinvoke[key] {
			continue
		}
		before := v.req.Object
		for _, m := range inv.p.mutations {
			last, lastAs = v, inv.as
			if v.req.Object == nil {
				continue
			}
			out, err := c.mutate(ctx, inv, m, &v.req, v.req.Object)
			if err == nil {
				// Each mutation's result is decoded and defaulted (dispatchOne).
				step := decodeJSONPatch
				if m.apply {
					step = decodeApplyConfiguration
				}
				out, _, err = c.defaultMutated(inv.as.kind, v.req.Object, out, step, false)
				var st *status.Error
				if errors.As(err, &st) {
					// The dispatcher's own error ends the request.
					return nil, false, st
				}
				if err == nil {
					err = typedTargetError(inv.as.kind, req.Kind)
				}
			}
			if err != nil {
				*errs = append(*errs, policyError{policy: inv.p.name, binding: inv.b.name, msg: err.Error(), reason: string(status.ReasonInvalid)})
				*fps = append(*fps, inv.p.failPolicy)
				continue
			}
			v.req.Object = out
			v.dirty = true
		}
		if before != nil && !value.Equal(before, v.req.Object) {
			p, err := patch.CreateJSONPatch(before, v.req.Object)
			if err != nil {
				return nil, false, status.InternalError(err)
			}
			res.Patches = append(res.Patches, Mutation{Mutator: "policy/" + inv.p.name + "/" + inv.b.name, Round: round, Patch: p})
			st.requireReinvoking()
			should = true
		}
		if inv.p.reinvoke {
			if st.previously == nil {
				st.previously = map[string]bool{}
			}
			st.previously[key] = true
		}
	}
	if last != nil && last.req.Object != nil && last.dirty {
		st.requireReinvoking()
		should = true
		// Converted into the object the dispatcher holds.
		out, err := c.convertOnto(last.req.Object, obj, lastAs.kind, req.Kind)
		if err != nil {
			return nil, false, status.InternalError(fmt.Errorf("failed to convert object: %w", err))
		}
		obj = out
	}
	return obj, should, nil
}

// mapReinvocation is the mutating policy plugin's policyReinvokeContext,
// kept across the chain's two rounds.
type mapReinvocation struct {
	// lastOutput is the object the plugin's last dispatch left.
	lastOutput map[string]any
	hasOutput  bool
	// previously are the reinvocable (IfNeeded) invocations run since the last
	// change; reinvoke those to run again in the reinvocation round.
	previously, reinvoke map[string]bool
}

// requireReinvoking is RequireReinvokingPreviouslyInvokedPlugins.
func (s *mapReinvocation) requireReinvoking() {
	if s.reinvoke == nil {
		s.reinvoke = map[string]bool{}
	}
	for k := range s.previously {
		s.reinvoke[k] = true
	}
	s.previously = nil
}

// runMAPs is one dispatch of the mutating policy plugin (round 0, or the
// reinvocation round 1). It returns the object and whether the plugin asks
// for the reinvocation round: a policy changed the object, or a mutation was
// applied at all (the dispatcher then marks every reinvocable policy it ran,
// the one that mutated included, for reinvocation).
func (c *Chain) runMAPs(ctx context.Context, req *Request, obj map[string]any, res *Result, round int, st *mapReinvocation) (map[string]any, bool, error) {
	var errs []policyError
	var fps []string
	versions := map[schema.GroupVersionKind]*mapVersion{}
	invs := c.mapInvocations(req, obj, &errs, &fps, versions)
	should := false
	if len(invs) > 0 {
		if round == 1 && (!st.hasOutput || !value.Equal(st.lastOutput, obj)) {
			// Something after the policies changed the object.
			st.requireReinvoking()
		}
		var err error
		if obj, should, err = c.dispatchMAPs(ctx, req, obj, res, round, st, invs, versions, &errs, &fps); err != nil {
			return nil, false, err
		}
		st.lastOutput, st.hasOutput = obj, true
	}
	var kept []policyError
	for i, e := range errs {
		if fps[i] != "Ignore" {
			kept = append(kept, e)
		}
	}
	if len(kept) > 0 {
		st := forbidden(req, obj, errors.New("admission request denied by policy"))
		st.Message = kept[0].Error()
		if kept[0].reason != "" {
			st.Reason = status.Reason(kept[0].reason)
		}
		for _, e := range kept {
			st.Details.Causes = append(st.Details.Causes, status.Cause{Message: e.Error()})
		}
		return nil, false, st
	}
	return obj, should, nil
}
