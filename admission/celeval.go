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
	varObject    = "object"
	varOldObject = "oldObject"
	varParams    = "params"
	varRequest   = "request"
	varNamespace = "namespaceObject"
	varAuthz     = "authorizer"
	varAuthzRes  = "authorizer.requestResource"
	varVariables = "variables"
	// checkFrequency is celconfig.CheckFrequency.
	checkFrequency = 100
	// maxMessageSize is celconfig.MaxEvaluatedMessageExpressionSizeBytes.
	maxMessageSize = 5 * 1024
	// matchConditionsBudget is celconfig.RuntimeCELCostBudgetMatchConditions.
	matchConditionsBudget = 7000000
)

var (
	envOnce  sync.Once
	envs     [2]*celgo.Env
	envErr   error
	errBudet = "validation failed due to running out of cost budget, no further validation rules will be run"
)

// admissionEnv is the environment admission expressions compile in: the base
// environment of the stored-expressions version with object, oldObject,
// request, namespaceObject, authorizer and (with params) params declared.
// request and namespaceObject are dynamically typed here (the apiserver
// declares object types for them): expressions that are valid for the
// apiserver compile the same; some invalid ones are rejected at run time.
func admissionEnv(hasParams bool) (*celgo.Env, error) {
	envOnce.Do(func() {
		base, err := cel.BaseEnv(cel.V1_37)
		if err != nil {
			envErr = err
			return
		}
		for i, p := range []bool{false, true} {
			opts := []celgo.EnvOption{
				celgo.Variable(varObject, celgo.DynType),
				celgo.Variable(varOldObject, celgo.DynType),
				celgo.Variable(varNamespace, celgo.DynType),
				celgo.Variable(varRequest, celgo.DynType),
				celgo.Variable(varAuthz, cel.AuthorizerType),
				celgo.Variable(varAuthzRes, cel.ResourceCheckType),
			}
			if p {
				opts = append(opts, celgo.Variable(varParams, celgo.DynType))
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
	if hasParams {
		return envs[1], nil
	}
	return envs[0], nil
}

// program is one compiled expression (CompilationResult).
type program struct {
	expr string
	prog celgo.Program
	// err is the compilation error's text ("compilation failed: ...").
	err     string
	outType *types.Type
}

// variablesType is the object type of `variables` for one policy: a field per
// variable with the type its expression compiled to.
type variablesProvider struct {
	types.Provider
	fields map[string]*types.Type
}

const variablesTypeName = "kubernetes.variables"

func (p *variablesProvider) FindStructType(name string) (*types.Type, bool) {
	if name == variablesTypeName {
		return types.NewTypeTypeWithParam(types.NewObjectType(variablesTypeName)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *variablesProvider) FindStructFieldNames(name string) ([]string, bool) {
	if name == variablesTypeName {
		out := make([]string, 0, len(p.fields))
		for k := range p.fields {
			out = append(out, k)
		}
		sort.Strings(out)
		return out, true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *variablesProvider) FindStructFieldType(name, f string) (*types.FieldType, bool) {
	if name == variablesTypeName {
		t, ok := p.fields[f]
		if !ok {
			return nil, false
		}
		return &types.FieldType{Type: t,
			IsSet: func(target any) bool {
				lv, ok := target.(*lazyVariables)
				if !ok {
					return false
				}
				_, found := lv.names[f]
				return found
			},
			GetFrom: func(target any) (any, error) {
				lv, ok := target.(*lazyVariables)
				if !ok {
					return nil, fmt.Errorf("no such key: %v", f)
				}
				v, found := lv.get(f)
				if !found {
					return nil, fmt.Errorf("no such key: %v", f)
				}
				return v, nil
			},
		}, true
	}
	return p.Provider.FindStructFieldType(name, f)
}

// compiler compiles the expressions of one policy: variables first (each may
// use the ones before it), then everything else against the variables' types.
type compiler struct {
	env *celgo.Env
}

type namedExpr struct{ name, expr string }

func newCompiler(hasParams bool, variables []namedExpr) (*compiler, []program, error) {
	env, err := admissionEnv(hasParams)
	if err != nil {
		return nil, nil, err
	}
	return newCompilerIn(env, variables)
}

func newCompilerIn(env *celgo.Env, variables []namedExpr) (*compiler, []program, error) {
	var err error
	prov := &variablesProvider{Provider: env.CELTypeProvider(), fields: map[string]*types.Type{}}
	progs := make([]program, len(variables))
	cur := env
	for i, v := range variables {
		c := &compiler{env: cur}
		progs[i] = c.compile(v.expr, nil)
		t := types.DynType
		if progs[i].prog != nil {
			t = progs[i].outType
		}
		prov.fields[v.name] = t
		cur, err = env.Extend(celgo.CustomTypeProvider(copyProvider(prov)), celgo.Variable(varVariables, types.NewObjectType(variablesTypeName)))
		if err != nil {
			return nil, nil, err
		}
	}
	if len(variables) == 0 {
		cur, err = env.Extend(celgo.CustomTypeProvider(prov), celgo.Variable(varVariables, types.NewObjectType(variablesTypeName)))
		if err != nil {
			return nil, nil, err
		}
	}
	return &compiler{env: cur}, progs, nil
}

func copyProvider(p *variablesProvider) *variablesProvider {
	f := make(map[string]*types.Type, len(p.fields))
	for k, v := range p.fields {
		f[k] = v
	}
	return &variablesProvider{Provider: p.Provider, fields: f}
}

// compile compiles expr; want lists the allowed output types (nil: any).
func (c *compiler) compile(expr string, want []*celgo.Type) program {
	p := program{expr: expr}
	ast, iss := c.env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		p.err = "compilation failed: " + iss.String()
		return p
	}
	if want != nil {
		found := false
		for _, w := range want {
			if ast.OutputType().IsExactType(w) {
				found = true
			}
		}
		if !found {
			if len(want) == 1 {
				p.err = fmt.Sprintf("must evaluate to %v but got %v", want[0].String(), ast.OutputType().String())
			} else {
				p.err = fmt.Sprintf("must evaluate to one of %v but got %v", want, ast.OutputType().String())
			}
			return p
		}
	}
	prog, err := c.env.Program(ast, celgo.InterruptCheckFrequency(checkFrequency))
	if err != nil {
		p.err = "program instantiation failed: " + err.Error()
		return p
	}
	p.prog = prog
	p.outType = ast.OutputType()
	return p
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
	if p.err != "" {
		return evalResult{err: "compilation error: " + p.err}, nil
	}
	before := act.vars.cost
	val, det, err := p.prog.ContextEval(ctx, act)
	varCost := act.vars.cost - before
	if varCost > *budget {
		*budget = -1
		return evalResult{}, &budgetError{errBudet}
	}
	*budget -= varCost
	if det == nil || det.ActualCost() == nil {
		return evalResult{}, &budgetError{fmt.Sprintf("runtime cost could not be calculated for expression: %v, no further expression will be run", p.expr)}
	}
	c := *det.ActualCost()
	if c > math.MaxInt64 || int64(c) > *budget {
		*budget = -1
		return evalResult{}, &budgetError{errBudet}
	}
	*budget -= int64(c)
	if err != nil {
		return evalResult{err: fmt.Sprintf("expression '%v' resulted in error: %v", p.expr, err)}, nil
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
		if p.err != "" {
			l.results[i] = types.NewErr("composited variable %q fails to compile: %v", name, p.err)
		} else {
			val, det, err := p.prog.ContextEval(l.ctx, l.act)
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

func (l *lazyVariables) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("variables cannot be converted")
}
func (l *lazyVariables) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return types.NewObjectType(variablesTypeName)
	}
	return types.NewErr("variables cannot be converted to %v", t)
}
func (l *lazyVariables) Equal(o ref.Val) ref.Val { return types.Bool(l == o) }
func (l *lazyVariables) Type() ref.Type          { return types.NewObjectType(variablesTypeName) }
func (l *lazyVariables) Value() any              { return l }
func (l *lazyVariables) Get(key ref.Val) ref.Val {
	v, ok := l.Find(key)
	if !ok {
		return types.NewErr("no such key: %v", key)
	}
	return v
}
func (l *lazyVariables) Find(key ref.Val) (ref.Val, bool) {
	s, ok := key.(types.String)
	if !ok {
		return nil, false
	}
	return l.get(string(s))
}
func (l *lazyVariables) Contains(key ref.Val) ref.Val { _, ok := l.Find(key); return types.Bool(ok) }
func (l *lazyVariables) IsSet(f ref.Val) ref.Val      { return l.Contains(f) }
func (l *lazyVariables) Size() ref.Val                { return types.Int(len(l.names)) }
func (l *lazyVariables) Iterator() traits.Iterator {
	keys := make([]string, 0, len(l.names))
	for k := range l.names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return types.NewStringList(types.DefaultTypeAdapter, keys).(traits.Lister).Iterator()
}

// celValue converts an object-model value for CEL (unstructured, no schema).
func celValue(v any) any {
	if v == nil {
		return types.NullValue
	}
	return types.DefaultTypeAdapter.NativeToValue(v)
}

// trimmed is strings.TrimSpace.
func trimmed(s string) string { return strings.TrimSpace(s) }
