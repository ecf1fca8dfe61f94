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
		for i := range envs {
			envs[i], envErr = declareAdmission(base, i&1 == 1, i&2 == 2)
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

// declareAdmission extends base with the variables of admission expressions
// (createEnvForOpts): object and oldObject (dyn), namespaceObject and request
// (declared object types), params (dyn) with hasParams, authorizer and
// authorizer.requestResource with hasAuthorizer.
func declareAdmission(base *celgo.Env, hasParams, hasAuthorizer bool) (*celgo.Env, error) {
	req, ns := cel.AdmissionRequestDeclType(), cel.NamespaceDeclType()
	opts := []celgo.EnvOption{
		celgo.CustomTypeProvider(newDeclProvider(base.CELTypeProvider(), ns, req)),
		celgo.Variable(varObject, celgo.DynType),
		celgo.Variable(varOldObject, celgo.DynType),
		celgo.Variable(varNamespace, ns.CelType()),
		celgo.Variable(varRequest, req.CelType()),
	}
	if hasParams {
		opts = append(opts, celgo.Variable(varParams, celgo.DynType))
	}
	if hasAuthorizer {
		opts = append(opts,
			celgo.Variable(varAuthz, cel.AuthorizerType),
			celgo.Variable(varAuthzRes, cel.ResourceCheckType))
	}
	return base.Extend(opts...)
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
// sorted key order (cel.UnstructuredValue).
func celValue(v any) any {
	return cel.UnstructuredValue(v)
}

// trimmed is strings.TrimSpace.
func trimmed(s string) string { return strings.TrimSpace(s) }
