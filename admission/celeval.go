package admission

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"

	"github.com/writepath/writepath/cel"
)

// CEL variable names of admission expressions (k8s.io/apiserver/pkg/admission/plugin/cel).
const (
	varObject    = cel.VarObject
	varOldObject = cel.VarOldObject
	varParams    = cel.VarParams
	varRequest   = cel.VarRequest
	varNamespace = cel.VarNamespace
	varAuthz     = cel.VarAuthz
	varAuthzRes  = cel.VarAuthzRes
	varVariables = cel.VarVariables
	// checkFrequency is celconfig.CheckFrequency.
	checkFrequency = cel.CheckFrequency
	// maxMessageSize is celconfig.MaxEvaluatedMessageExpressionSizeBytes.
	maxMessageSize = 5 * 1024
	// matchConditionsBudget is celconfig.RuntimeCELCostBudgetMatchConditions.
	matchConditionsBudget = 7000000
)

var (
	envOnce  sync.Once
	envs     [4]*celgo.Env
	envErr   error
	errBudet = "validation failed due to running out of cost budget, no further validation rules will be run"
)

// admissionEnv is the environment admission expressions compile in, with
// `authorizer` declared (validations, matchConditions, variables, audit
// annotations and mutations). See admissionEnvFor.
func admissionEnv(hasParams bool) (*celgo.Env, error) {
	return admissionEnvFor(hasParams, true)
}

// admissionEnvFor is plugin/cel's environment for one set of optional
// declarations: the base environment of the stored-expressions version with
// object and oldObject (dyn), namespaceObject and request (declared object
// types, BuildNamespaceType and BuildRequestType), params (dyn) with a
// paramKind and authorizer and authorizer.requestResource when hasAuthorizer
// (messageExpressions are compiled without them).
func admissionEnvFor(hasParams, hasAuthorizer bool) (*celgo.Env, error) {
	envOnce.Do(func() {
		base, err := cel.BaseEnv(cel.V1_37)
		if err != nil {
			envErr = err
			return
		}
		req, ns := cel.AdmissionRequestDeclType(), cel.NamespaceDeclType()
		for i := range envs {
			p, a := i&1 == 1, i&2 == 2
			opts := []celgo.EnvOption{
				celgo.CustomTypeProvider(newDeclProvider(base.CELTypeProvider(), ns, req)),
				celgo.Variable(varObject, celgo.DynType),
				celgo.Variable(varOldObject, celgo.DynType),
				celgo.Variable(varNamespace, ns.CelType()),
				celgo.Variable(varRequest, req.CelType()),
			}
			if p {
				opts = append(opts, celgo.Variable(varParams, celgo.DynType))
			}
			if a {
				opts = append(opts,
					celgo.Variable(varAuthz, cel.AuthorizerType),
					celgo.Variable(varAuthzRes, cel.ResourceCheckType))
			}
			envs[i], envErr = base.Extend(opts...)
			if envErr != nil {
				return
			}
		}
	})
	if envErr != nil {
		return nil, envErr
	}
	i := 0
	if hasParams {
		i |= 1
	}
	if hasAuthorizer {
		i |= 2
	}
	return envs[i], nil
}

// newDeclProvider is the apiserver's DeclTypeProvider over base for the
// declared roots, keywords recognised as field names (compatibility version
// 1.37).
func newDeclProvider(base types.Provider, roots ...*cel.DeclType) *cel.DeclTypeProvider {
	return cel.NewDeclTypeProvider(base, true, roots...)
}

// program is one compiled expression; namedExpr one of a policy's variables.
type (
	program   = cel.Program
	namedExpr = cel.NamedExpr
)

// compiler is the composition of one policy (cel.Composition); compile counts the programs
// compiled (compilations).
type compiler struct{ *cel.Composition }

func newCompiler(hasParams bool, variables []namedExpr) (*compiler, []program, error) {
	env, err := admissionEnv(hasParams)
	if err != nil {
		return nil, nil, err
	}
	return newCompilerIn(env, variables)
}

func newCompilerIn(env *celgo.Env, variables []namedExpr) (*compiler, []program, error) {
	compilations.Add(int64(len(variables)))
	c, progs, err := cel.NewComposition(env, variables)
	if err != nil {
		return nil, nil, err
	}
	return &compiler{c}, progs, nil
}

// in returns a compiler for env that sees the same variables.
func (c *compiler) in(env *celgo.Env) (*compiler, error) {
	cc, err := c.In(env)
	if err != nil {
		return nil, err
	}
	return &compiler{cc}, nil
}

// compile compiles expr; want lists the allowed output types (nil: any).
func (c *compiler) compile(expr string, want []*celgo.Type) program {
	compilations.Add(1)
	return c.Compile(expr, want)
}

// activation is the variables one evaluation sees.
type activation struct {
	object, oldObject, namespace, params any
	authz, authzRes                      any
	rv                                   *requestValues
	vars                                 *lazyVariables
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case varObject:
		return a.object, true
	case varOldObject:
		return a.oldObject, true
	case varRequest:
		return a.rv.requestValue(), true
	case varNamespace:
		return a.namespace, true
	case varParams:
		return a.params, true
	case varAuthz:
		return a.authz, a.authz != nil
	case varAuthzRes:
		return a.authzRes, a.authzRes != nil
	case varVariables:
		return a.vars, true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// evalResult is one expression's outcome.
type evalResult struct {
	val ref.Val
	// err is "compilation error: ..." or "expression '...' resulted in error: ...".
	err string
}

// errOutOfBudget is the error that stops an evaluation pass.
type budgetError struct{ msg string }

func (e *budgetError) Error() string { return e.msg }

// eval runs p, charging its cost (and the cost of the variables it made
// evaluate) to *budget. A nil error with a result is the expression's value or
// error; a non-nil error ends the pass (cost budget exhausted).
func eval(ctx context.Context, p program, act *activation, budget *int64) (evalResult, error) {
	if p.Err != "" {
		return evalResult{err: "compilation error: " + p.Err}, nil
	}
	before := act.vars.cost
	val, det, err := p.Prog.ContextEval(ctx, act)
	varCost := act.vars.cost - before
	if varCost > *budget {
		*budget = -1
		return evalResult{}, &budgetError{errBudet}
	}
	*budget -= varCost
	if det == nil || det.ActualCost() == nil {
		return evalResult{}, &budgetError{fmt.Sprintf("runtime cost could not be calculated for expression: %v, no further expression will be run", p.Expr)}
	}
	c := *det.ActualCost()
	if c > math.MaxInt64 || int64(c) > *budget {
		*budget = -1
		return evalResult{}, &budgetError{errBudet}
	}
	*budget -= int64(c)
	if err != nil {
		return evalResult{err: fmt.Sprintf("expression '%v' resulted in error: %v", p.Expr, err)}, nil
	}
	return evalResult{val: val}, nil
}

// lazyVariables is the `variables` value: each variable is evaluated the first
// time an expression reads it, once per activation, as the apiserver's
// composition context does.
type lazyVariables struct {
	ctx     context.Context
	names   map[string]int
	progs   []program
	act     *activation
	results []ref.Val
	done    []bool
	cost    int64
}

func (l *lazyVariables) get(name string) (ref.Val, bool) {
	i, ok := l.names[name]
	if !ok {
		return nil, false
	}
	if !l.done[i] {
		l.done[i] = true
		// A variable that reads itself sees this error.
		l.results[i] = types.NewErr("composited variable %q refers to itself", name)
		p := l.progs[i]
		if p.Err != "" {
			l.results[i] = types.NewErr("composited variable %q fails to compile: %v", name, p.Err)
		} else {
			val, det, err := p.Prog.ContextEval(l.ctx, l.act)
			if det != nil && det.ActualCost() != nil {
				l.cost += int64(*det.ActualCost())
			}
			if err != nil {
				l.results[i] = types.NewErr("composited variable %q fails to evaluate: %v", name, err)
			} else {
				l.results[i] = val
			}
		}
	}
	return l.results[i], true
}

// lazyVariables behaves as the apiserver's lazy.MapValue.
func (l *lazyVariables) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("disallowed conversion from %q to %q", cel.VariablesTypeName, t.Name())
}
func (l *lazyVariables) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.TypeType:
		return types.NewObjectType(cel.VariablesTypeName)
	}
	if t.TypeName() == cel.VariablesTypeName {
		return l
	}
	return types.NewErr("disallowed conversion from %q to %q", cel.VariablesTypeName, t.TypeName())
}
func (l *lazyVariables) Equal(o ref.Val) ref.Val {
	other, ok := o.(*lazyVariables)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return types.Bool(l == other)
}
func (l *lazyVariables) Type() ref.Type { return types.NewObjectType(cel.VariablesTypeName) }
func (l *lazyVariables) Value() any     { return types.NoSuchOverloadErr() }
func (l *lazyVariables) Get(key ref.Val) ref.Val {
	v, ok := l.Find(key)
	if ok {
		return v
	}
	return types.ValOrErr(key, "no such key: %v", key)
}
func (l *lazyVariables) Find(key ref.Val) (ref.Val, bool) {
	s, ok := key.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s), true
	}
	name, ok := cel.Unescape(string(s))
	if !ok {
		return nil, false
	}
	return l.get(name)
}
func (l *lazyVariables) Contains(key ref.Val) ref.Val {
	v, found := l.Find(key)
	if v != nil && types.IsUnknownOrError(v) {
		return v
	}
	return types.Bool(found)
}
func (l *lazyVariables) Size() ref.Val { return types.Int(len(l.names)) }
func (l *lazyVariables) Iterator() traits.Iterator {
	keys := make([]string, 0, len(l.names))
	for k := range l.names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return types.NewStringList(types.DefaultTypeAdapter, keys).(traits.Lister).Iterator()
}

// celValue converts an object-model value for CEL (unstructured, no schema); maps iterate in
// sorted key order (sortedAdapter).
func celValue(v any) any {
	return sortedAdapter{}.NativeToValue(v)
}

// trimmed is strings.TrimSpace.
func trimmed(s string) string { return strings.TrimSpace(s) }

// goShape says which JSON objects of a value are Go structs and which Go
// maps in the typed object the apiserver hands to CEL: request
// (admissionv1.AdmissionRequest), namespaceObject (corev1.Namespace) and the
// params of built-in kinds are typed objects, wrapped by
// common.SchemalessTypedToVal. Plain JSON (options, a RawExtension) is
// converted as unstructured content is.
type goShape struct {
	kind   byte // 's' struct, 'm' map, 'l' list, 'p' plain JSON; 0 scalar
	fields map[string]*goShape
	elem   *goShape
}

var (
	shapeScalar = &goShape{}
	shapePlain  = &goShape{kind: 'p'}
	shapeGVK    = &goShape{kind: 's', fields: map[string]*goShape{}}

	requestShape = &goShape{kind: 's', fields: map[string]*goShape{
		"kind": shapeGVK, "resource": shapeGVK, "requestKind": shapeGVK, "requestResource": shapeGVK,
		"userInfo": {kind: 's', fields: map[string]*goShape{
			"groups": {kind: 'l', elem: shapeScalar},
			"extra":  {kind: 'm', elem: &goShape{kind: 'l', elem: shapeScalar}},
		}},
		"options": shapePlain, "object": shapePlain, "oldObject": shapePlain,
	}}
	stringMapShape = &goShape{kind: 'm', elem: shapeScalar}
	stringsShape   = &goShape{kind: 'l', elem: shapeScalar}
	namespaceShape = &goShape{kind: 's', fields: map[string]*goShape{
		"metadata": {kind: 's', fields: map[string]*goShape{
			"labels": stringMapShape, "annotations": stringMapShape, "finalizers": stringsShape}},
		"spec": {kind: 's', fields: map[string]*goShape{"finalizers": stringsShape}},
		"status": {kind: 's', fields: map[string]*goShape{
			"conditions": {kind: 'l', elem: &goShape{kind: 's', fields: map[string]*goShape{}}}}},
	}}
)

// typedValue converts v, shaped as s, to the CEL value SchemalessTypedToVal
// gives the typed object: Go maps, slices and structs compare unequal types
// with "no such overload" rather than false, lists report out-of-range
// indexes in their own words, and structs compare with each other by deep
// equality.
func typedValue(v any, s *goShape) ref.Val {
	if v == nil {
		return types.NullValue
	}
	switch s.kind {
	case 's':
		m, ok := v.(map[string]any)
		if !ok {
			break
		}
		fields := make(map[string]ref.Val, len(m))
		for k, x := range m {
			fs := s.fields[k]
			if fs == nil {
				fs = shapeScalar
			}
			fields[k] = typedValue(x, fs)
		}
		return &goStruct{fields: fields, raw: m}
	case 'm':
		m, ok := v.(map[string]any)
		if !ok {
			break
		}
		vals := make(map[string]ref.Val, len(m))
		for k, x := range m {
			vals[k] = typedValue(x, s.elem)
		}
		return &goMap{vals: vals}
	case 'l':
		l, ok := v.([]any)
		if !ok {
			break
		}
		elems := make([]ref.Val, len(l))
		for i, x := range l {
			elems[i] = typedValue(x, s.elem)
		}
		return &goList{elems: elems}
	}
	return types.DefaultTypeAdapter.NativeToValue(v)
}

// goList is reflectSchemalessTypedList.
type goList struct{ elems []ref.Val }

func (l *goList) ConvertToNative(t reflect.Type) (any, error) {
	if t.Kind() == reflect.Slice {
		return types.NewRefValList(types.DefaultTypeAdapter, l.elems).ConvertToNative(t)
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", l.Type(), t)
}
func (l *goList) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.ListType:
		return l
	case types.TypeType:
		return types.ListType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", l.Type(), t.TypeName())
}
func (l *goList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if types.Int(len(l.elems)) != o.Size().(types.Int) {
		return types.False
	}
	for i, e := range l.elems {
		if e.Equal(o.Get(types.Int(i))) != types.True {
			return types.False
		}
	}
	return types.True
}
func (l *goList) Type() ref.Type { return types.ListType }
func (l *goList) Value() any     { return l.elems }
func (l *goList) Contains(v ref.Val) ref.Val {
	for _, e := range l.elems {
		if e.Equal(v) == types.True {
			return types.True
		}
	}
	return types.False
}
func (l *goList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	out := append([]ref.Val(nil), l.elems...)
	for it := o.Iterator(); it.HasNext() == types.True; {
		out = append(out, it.Next())
	}
	return types.NewRefValList(types.DefaultTypeAdapter, out)
}
func (l *goList) Get(index ref.Val) ref.Val {
	i, ok := index.(types.Int)
	if !ok {
		return types.ValOrErr(index, "unsupported index type: %T", index)
	}
	if i < 0 || int(i) >= len(l.elems) {
		return types.NewErr("index out of bounds: %d", i)
	}
	return l.elems[i]
}
func (l *goList) Iterator() traits.Iterator { return &goIterator{vals: l.elems} }
func (l *goList) Size() ref.Val             { return types.Int(len(l.elems)) }

// goIterator iterates over values already converted.
type goIterator struct {
	goList
	vals []ref.Val
	i    int
}

func (it *goIterator) HasNext() ref.Val { return types.Bool(it.i < len(it.vals)) }
func (it *goIterator) Next() ref.Val {
	if it.i >= len(it.vals) {
		return types.NewErr("no more elements")
	}
	v := it.vals[it.i]
	it.i++
	return v
}

// goMap is reflectSchemalessTypedMap (string keys).
type goMap struct{ vals map[string]ref.Val }

func (m *goMap) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", m.Type(), t)
}
func (m *goMap) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.MapType:
		return m
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", m.Type(), t.TypeName())
}
func (m *goMap) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Mapper)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if types.Int(len(m.vals)) != o.Size() {
		return types.False
	}
	for k, v := range m.vals {
		ov, found := o.Find(types.String(k))
		if !found || v.Equal(ov) != types.True {
			return types.False
		}
	}
	return types.True
}
func (m *goMap) Type() ref.Type { return types.MapType }
func (m *goMap) Value() any     { return m.vals }
func (m *goMap) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return types.ValOrErr(key, "unsupported map key type: %T", key), false
	}
	v, found := m.vals[string(k)]
	return v, found
}
func (m *goMap) Get(key ref.Val) ref.Val {
	v, found := m.Find(key)
	if !found {
		if v != nil && types.IsError(v) {
			return v
		}
		return types.ValOrErr(key, "no such key: %v", key)
	}
	return v
}
func (m *goMap) Contains(key ref.Val) ref.Val {
	v, found := m.Find(key)
	if v != nil && types.IsError(v) {
		return v
	}
	return types.Bool(found)
}
func (m *goMap) Iterator() traits.Iterator { return &goIterator{vals: sortedFieldKeys(m.vals)} }
func (m *goMap) Size() ref.Val             { return types.Int(len(m.vals)) }

func sortedFieldKeys(m map[string]ref.Val) []ref.Val {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]ref.Val, len(keys))
	for i, k := range keys {
		out[i] = types.String(k)
	}
	return out
}

// goStruct is reflectSchemalessTypedStruct: the fields JSON would write
// (omitempty ones left out when empty).
type goStruct struct {
	fields map[string]ref.Val
	raw    map[string]any
	// goType is the Go type as reflect prints it ("v1.ServiceStatus"), when known.
	goType string
}

func (s *goStruct) ConvertToNative(t reflect.Type) (any, error) {
	name := s.goType
	if name == "" {
		name = "map"
	}
	return nil, fmt.Errorf("type conversion error from struct type %s to %v", name, t)
}
func (s *goStruct) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.MapType:
		return s
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from struct to %s", t.TypeName())
}
func (s *goStruct) Equal(other ref.Val) ref.Val {
	if o, ok := other.(*goStruct); ok {
		return types.Bool(reflect.DeepEqual(s.raw, o.raw))
	}
	o, ok := other.(traits.Mapper)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if types.Int(len(s.fields)) != o.Size() {
		return types.False
	}
	for _, k := range sortedFieldKeys(s.fields) {
		ov, found := o.Find(k)
		if !found {
			return types.False
		}
		if eq := s.fields[string(k.(types.String))].Equal(ov); eq != types.True {
			return eq
		}
	}
	return types.True
}
func (s *goStruct) Type() ref.Type { return types.MapType }
func (s *goStruct) Value() any     { return s.raw }
func (s *goStruct) lookup(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return types.ValOrErr(key, "unsupported map key type: %T", key), true
	}
	v, found := s.fields[string(k)]
	return v, found
}
func (s *goStruct) IsSet(key ref.Val) ref.Val {
	v, found := s.lookup(key)
	if v != nil && types.IsUnknownOrError(v) {
		return v
	}
	return types.Bool(found)
}
func (s *goStruct) Find(key ref.Val) (ref.Val, bool) { return s.lookup(key) }
func (s *goStruct) Get(key ref.Val) ref.Val {
	v, found := s.lookup(key)
	if !found {
		return types.ValOrErr(key, "no such key: %v", key)
	}
	return v
}
func (s *goStruct) Contains(key ref.Val) ref.Val {
	v, found := s.lookup(key)
	if v != nil && types.IsError(v) {
		return v
	}
	return types.Bool(found)
}
func (s *goStruct) Iterator() traits.Iterator { return &goIterator{vals: sortedFieldKeys(s.fields)} }
func (s *goStruct) Size() ref.Val             { return types.Int(len(s.fields)) }
