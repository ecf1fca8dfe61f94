package cel

import (
	"fmt"
	"sort"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/traits"
)

// The expressions of admission policies (k8s.io/apiserver/pkg/admission/plugin/cel): the names of
// their variables, the declared types of request and namespaceObject, and the composition that
// compiles a policy's variables before its other expressions. Package admission evaluates them;
// the type checking of kube-controller-manager compiles them against the matched kinds' types.

// CEL variable names of admission expressions.
const (
	VarObject    = "object"
	VarOldObject = "oldObject"
	VarParams    = "params"
	VarRequest   = "request"
	VarNamespace = "namespaceObject"
	VarAuthz     = "authorizer"
	VarAuthzRes  = "authorizer.requestResource"
	VarVariables = "variables"
	// CheckFrequency is celconfig.CheckFrequency: how often (in evaluation steps) a program
	// checks for interruption.
	CheckFrequency = 100
)

// AdmissionRequestDeclType is the type of `request` (plugin/cel.BuildRequestType): the
// AdmissionRequest without uid, object and oldObject.
func AdmissionRequestDeclType() *DeclType {
	str := StringDeclType
	gvk := NewObjectDeclType("kubernetes.GroupVersionKind", map[string]*DeclType{
		"group": str, "version": str, "kind": str})
	gvr := NewObjectDeclType("kubernetes.GroupVersionResource", map[string]*DeclType{
		"group": str, "version": str, "resource": str})
	userInfo := NewObjectDeclType("kubernetes.UserInfo", map[string]*DeclType{
		"username": str,
		"uid":      str,
		"groups":   NewListDeclType(str),
		"extra":    NewMapDeclType(str, NewListDeclType(str)),
	})
	return NewObjectDeclType("kubernetes.AdmissionRequest", map[string]*DeclType{
		"kind":               gvk,
		"resource":           gvr,
		"subResource":        str,
		"requestKind":        gvk,
		"requestResource":    gvr,
		"requestSubResource": str,
		"name":               str,
		"namespace":          str,
		"operation":          str,
		"userInfo":           userInfo,
		"dryRun":             BoolDeclType,
		"options":            DynDeclType,
	})
}

// NamespaceDeclType is the type of `namespaceObject` (plugin/cel.BuildNamespaceType). Its field
// names are the apiserver's, "UID" included (the value's key is "uid":
// `namespaceObject.metadata.uid` does not compile, UID never has a value).
func NamespaceDeclType() *DeclType {
	str, ts := StringDeclType, TimestampDeclType
	spec := NewObjectDeclType("kubernetes.NamespaceSpec", map[string]*DeclType{"finalizers": NewListDeclType(str)})
	condition := NewObjectDeclType("kubernetes.NamespaceCondition", map[string]*DeclType{
		"status":             str,
		"type":               str,
		"lastTransitionTime": ts,
		"message":            str,
		"reason":             str,
	})
	status := NewObjectDeclType("kubernetes.NamespaceStatus", map[string]*DeclType{
		"conditions": NewListDeclType(condition),
		"phase":      str,
	})
	metadata := NewObjectDeclType("kubernetes.NamespaceMetadata", map[string]*DeclType{
		"name":                       str,
		"generateName":               str,
		"namespace":                  str,
		"labels":                     NewMapDeclType(str, str),
		"annotations":                NewMapDeclType(str, str),
		"UID":                        str,
		"creationTimestamp":          ts,
		"deletionGracePeriodSeconds": IntDeclType,
		"deletionTimestamp":          ts,
		"generation":                 IntDeclType,
		"resourceVersion":            str,
		"finalizers":                 NewListDeclType(str),
	})
	return NewObjectDeclType("kubernetes.Namespace", map[string]*DeclType{
		"metadata": metadata, "spec": spec, "status": status})
}

// VariableType is the type `variables.<name>` has for a variable whose expression compiled to t
// (plugin/cel.convertCelTypeToDeclType): scalars as they are (compared by identity), lists and
// maps with their parameters converted, everything else (object types, optionals, type) dyn.
func VariableType(t *types.Type) *types.Type {
	if t == nil {
		return types.DynType
	}
	switch t {
	case types.AnyType, types.BoolType, types.BytesType, types.DoubleType, types.DurationType,
		types.IntType, types.NullType, types.StringType, types.TimestampType, types.UintType:
		return t
	}
	if t.HasTrait(traits.ContainerType) && t.HasTrait(traits.IndexerType) {
		switch ps := t.Parameters(); len(ps) {
		case 1:
			return types.NewListType(VariableType(ps[0]))
		case 2:
			return types.NewMapType(VariableType(ps[0]), VariableType(ps[1]))
		}
	}
	return types.DynType
}

// Program is one compiled expression (CompilationResult).
type Program struct {
	Expr string
	Prog celgo.Program
	// Err is the compilation error's text ("compilation failed: ..."), "" when it compiled.
	Err     string
	OutType *types.Type
}

// variablesProvider is the object type of `variables` for one policy: a field per variable with
// the type its expression compiled to.
type variablesProvider struct {
	types.Provider
	fields map[string]*types.Type
}

// VariablesTypeName is the object type name of `variables`.
const VariablesTypeName = "kubernetes.variables"

func (p *variablesProvider) FindStructType(name string) (*types.Type, bool) {
	if name == VariablesTypeName {
		return types.NewTypeTypeWithParam(types.NewObjectType(VariablesTypeName)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *variablesProvider) FindStructFieldNames(name string) ([]string, bool) {
	if name == VariablesTypeName {
		out := make([]string, 0, len(p.fields))
		for k := range p.fields {
			out = append(out, k)
		}
		sort.Strings(out)
		return out, true
	}
	return p.Provider.FindStructFieldNames(name)
}

// FindStructFieldType gives a variable's type without accessors, as the apiserver's
// DeclTypeProvider does: variables are read through the lazy map's Find, so has(variables.x)
// evaluates x (and fails with it).
func (p *variablesProvider) FindStructFieldType(name, f string) (*types.FieldType, bool) {
	if name == VariablesTypeName {
		t, ok := p.fields[f]
		if !ok {
			return nil, false
		}
		return &types.FieldType{Type: t}, true
	}
	return p.Provider.FindStructFieldType(name, f)
}

// NamedExpr is one of a policy's variables: its name and expression.
type NamedExpr struct{ Name, Expr string }

// Composition compiles the expressions of one policy (plugin/cel's composition environment):
// variables first (each may use the ones before it), then everything else against the
// variables' types. Env is the environment the policy's other expressions compile in.
type Composition struct {
	Env  *celgo.Env
	vars *variablesProvider
}

// NewComposition compiles variables in env, in order, and returns the composition whose Env
// declares `variables` with their types, and the variables' programs.
func NewComposition(env *celgo.Env, variables []NamedExpr) (*Composition, []Program, error) {
	var err error
	prov := &variablesProvider{Provider: env.CELTypeProvider(), fields: map[string]*types.Type{}}
	progs := make([]Program, len(variables))
	cur := env
	for i, v := range variables {
		c := &Composition{Env: cur}
		progs[i] = c.Compile(v.Expr, nil)
		// The variable's type as the composition's DeclType holds it.
		prov.fields[v.Name] = VariableType(progs[i].OutType)
		cur, err = env.Extend(celgo.CustomTypeProvider(copyProvider(prov)), celgo.Variable(VarVariables, types.NewObjectType(VariablesTypeName)))
		if err != nil {
			return nil, nil, err
		}
	}
	if len(variables) == 0 {
		cur, err = env.Extend(celgo.CustomTypeProvider(prov), celgo.Variable(VarVariables, types.NewObjectType(VariablesTypeName)))
		if err != nil {
			return nil, nil, err
		}
	}
	return &Composition{Env: cur, vars: prov}, progs, nil
}

// In returns a composition for env that sees the same variables (the composition's variables
// are declared in every environment of a policy).
func (c *Composition) In(env *celgo.Env) (*Composition, error) {
	prov := copyProvider(c.vars)
	prov.Provider = env.CELTypeProvider()
	e, err := env.Extend(celgo.CustomTypeProvider(prov), celgo.Variable(VarVariables, types.NewObjectType(VariablesTypeName)))
	if err != nil {
		return nil, err
	}
	return &Composition{Env: e, vars: prov}, nil
}

func copyProvider(p *variablesProvider) *variablesProvider {
	f := make(map[string]*types.Type, len(p.fields))
	for k, v := range p.fields {
		f[k] = v
	}
	return &variablesProvider{Provider: p.Provider, fields: f}
}

// Compile compiles expr in c.Env; want lists the allowed output types (nil: any). A failure is
// the Program's Err, worded as the apiserver's CompilationResult error.
func (c *Composition) Compile(expr string, want []*celgo.Type) Program {
	p := Program{Expr: expr}
	ast, iss := c.Env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		p.Err = "compilation failed: " + iss.String()
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
				p.Err = fmt.Sprintf("must evaluate to %v but got %v", want[0].String(), ast.OutputType().String())
			} else {
				p.Err = fmt.Sprintf("must evaluate to one of %v but got %v", want, ast.OutputType().String())
			}
			return p
		}
	}
	prog, err := c.Env.Program(ast, celgo.InterruptCheckFrequency(CheckFrequency))
	if err != nil {
		p.Err = "program instantiation failed: " + err.Error()
		return p
	}
	p.Prog = prog
	p.OutType = ast.OutputType()
	return p
}

// TypeCheckEnv is the environment kube-controller-manager's type checker compiles a policy's
// expressions in for one checked kind (buildEnvSet): namespaceObject and request declared,
// object and oldObject of the kind's type (dyn when object is nil), params of the paramKind's
// type (dyn when params is nil) when the policy has a paramKind, and authorizer (without
// authorizer.requestResource).
func TypeCheckEnv(object, params *DeclType, hasParams bool) (*celgo.Env, error) {
	base, err := BaseEnv(V1_37)
	if err != nil {
		return nil, err
	}
	req, ns := AdmissionRequestDeclType(), NamespaceDeclType()
	roots := []*DeclType{ns, req}
	objType := celgo.DynType
	if object != nil {
		roots = append(roots, object)
		objType = object.CelType()
	}
	opts := []celgo.EnvOption{
		celgo.Variable(VarNamespace, ns.CelType()),
		celgo.Variable(VarRequest, req.CelType()),
		celgo.Variable(VarObject, objType),
		celgo.Variable(VarOldObject, objType),
	}
	if hasParams {
		pt := celgo.DynType
		if params != nil {
			roots = append(roots, params)
			pt = params.CelType()
		}
		opts = append(opts, celgo.Variable(VarParams, pt))
	}
	opts = append(opts, celgo.Variable(VarAuthz, AuthorizerType))
	opts = append([]celgo.EnvOption{celgo.CustomTypeProvider(NewDeclTypeProvider(base.CELTypeProvider(), true, roots...))}, opts...)
	return base.Extend(opts...)
}

// ComposeVariables returns the composition of env whose `variables` has exactly the given
// fields: each variable's name and the type of its value (VariableType of the type its
// expression compiled to). It is NewComposition for a caller that compiles the variables one at
// a time, as the apiserver's composited compiler stores them (a strategy's validation of a
// policy).
func ComposeVariables(env *celgo.Env, fields map[string]*types.Type) (*Composition, error) {
	prov := &variablesProvider{Provider: env.CELTypeProvider(), fields: make(map[string]*types.Type, len(fields))}
	for k, v := range fields {
		prov.fields[k] = v
	}
	e, err := env.Extend(celgo.CustomTypeProvider(prov), celgo.Variable(VarVariables, types.NewObjectType(VariablesTypeName)))
	if err != nil {
		return nil, err
	}
	return &Composition{Env: e, vars: prov}, nil
}
