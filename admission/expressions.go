package admission

import (
	"sync"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/writepath/writepath/cel"
	schemavalidation "github.com/writepath/writepath/schema/validation"
)

// ExpressionCompiler compiles the expressions of admission configurations as their strategies'
// validation does when they are written (plugin/cel's compiler over the apiserver's base
// environment set: new expressions at the compatibility version, 1.36, stored ones with every
// library of 1.37), for validation.Options.Expressions. The zero value is ready; it is safe
// for concurrent use (a scope is not: it belongs to one validation).
type ExpressionCompiler struct{}

var _ schemavalidation.ExpressionCompiler = ExpressionCompiler{}

// Scope implements schemavalidation.ExpressionCompiler.
func (ExpressionCompiler) Scope(composited bool) schemavalidation.ExpressionScope {
	return &expressionScope{composited: composited, fields: map[string]*types.Type{}}
}

// DeviceSelector implements schemavalidation.ExpressionCompiler with the DRA environment.
func (ExpressionCompiler) DeviceSelector(expression string) schemavalidation.DeviceSelectorResult {
	r := cel.CompileDeviceSelector(expression)
	return schemavalidation.DeviceSelectorResult{Err: r.Err, Internal: r.Internal, MaxCost: r.MaxCost}
}

// expressionScope is one policy's compiler: with composited, `variables` is declared with a
// field per variable stored so far.
type expressionScope struct {
	composited bool
	fields     map[string]*types.Type
}

func (s *expressionScope) Compile(e schemavalidation.Expression) string {
	return s.compile(e).Err
}

func (s *expressionScope) Variable(name string, e schemavalidation.Expression) string {
	p := s.compile(e)
	// A variable that does not compile is declared dyn (convertCelTypeToDeclType(nil)).
	s.fields[name] = cel.VariableType(p.OutType)
	return p.Err
}

func (s *expressionScope) compile(e schemavalidation.Expression) cel.Program {
	v := cel.V1_36
	if e.Stored {
		v = cel.V1_37
	}
	env, err := validationEnv(v, e.Params, e.Authorizer, e.PatchTypes)
	if err != nil {
		return cel.Program{Expr: e.Text, Err: "unexpected error loading CEL environment: " + err.Error()}
	}
	c := &cel.Composition{Env: env}
	if s.composited {
		if c, err = cel.ComposeVariables(env, s.fields); err != nil {
			return cel.Program{Expr: e.Text, Err: "unexpected error loading CEL environment: " + err.Error()}
		}
	}
	return c.Compile(e.Text, returnTypes(e.Returns))
}

func returnTypes(r schemavalidation.ExpressionResult) []*celgo.Type {
	switch r {
	case schemavalidation.ResultBool:
		return []*celgo.Type{celgo.BoolType}
	case schemavalidation.ResultString:
		return []*celgo.Type{celgo.StringType}
	case schemavalidation.ResultStringOrNull:
		return []*celgo.Type{celgo.StringType, celgo.NullType}
	case schemavalidation.ResultApplyConfiguration:
		return []*celgo.Type{types.NewObjectType(objectTypeName)}
	case schemavalidation.ResultJSONPatch:
		return []*celgo.Type{types.NewListType(types.NewObjectType(jsonPatchTypeName))}
	}
	return nil
}

type validationEnvKey struct {
	version                   cel.Version
	params, authz, patchTypes bool
}

var validationEnvs sync.Map // validationEnvKey -> *lazyEnv

type lazyEnv struct {
	once sync.Once
	env  *celgo.Env
	err  error
}

// validationEnv is plugin/cel's environment for one set of optional declarations at version v
// (createEnvForOpts): object and oldObject dyn, namespaceObject and request declared, params
// dyn, authorizer and authorizer.requestResource, and the patch types.
func validationEnv(v cel.Version, params, authz, patchTypes bool) (*celgo.Env, error) {
	k := validationEnvKey{v, params, authz, patchTypes}
	x, _ := validationEnvs.LoadOrStore(k, &lazyEnv{})
	l := x.(*lazyEnv)
	l.once.Do(func() {
		base, err := cel.BaseEnv(v)
		if err != nil {
			l.err = err
			return
		}
		l.env, l.err = declareAdmission(base, params, authz)
		if l.err == nil && patchTypes {
			l.env, l.err = withPatchTypes(l.env)
		}
	})
	return l.env, l.err
}
