package cel

import (
	"fmt"
	"reflect"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/writepath/writepath/internal/validation"
)

// The authorizer library's types (kubernetes.authz).
var (
	AuthorizerType    = celgo.ObjectType("kubernetes.authorization.Authorizer")
	PathCheckType     = celgo.ObjectType("kubernetes.authorization.PathCheck")
	GroupCheckType    = celgo.ObjectType("kubernetes.authorization.GroupCheck")
	ResourceCheckType = celgo.ObjectType("kubernetes.authorization.ResourceCheck")
	DecisionType      = celgo.ObjectType("kubernetes.authorization.Decision")
)

// Decision is an authorizer's verdict (the values of k8s.io/apiserver's authorizer.Decision).
type Decision int

// Decisions.
const (
	DecisionDeny Decision = iota
	DecisionAllow
	DecisionNoOpinion
)

// UserInfo is the user a check is made for.
type UserInfo struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// AuthzAttributes are the attributes of one authorizer.check() call, as the apiserver builds its
// AttributesRecord: a path check (Path set) or a resource check (ResourceRequest, APIVersion "*").
// Field and label selectors are passed as written; parsing them is the Authorizer's business
// (the apiserver parses them before calling its authorizer).
type AuthzAttributes struct {
	User            UserInfo
	Verb            string
	Path            string
	ResourceRequest bool
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Namespace       string
	Name            string
	FieldSelector   string
	LabelSelector   string
}

// Authorizer decides authorizer.check() calls. Authorization is an input: writepath has no
// RBAC of its own.
type Authorizer interface {
	Authorize(AuthzAttributes) (Decision, string, error)
}

type receiverOnly struct{ t *types.Type }

func (a receiverOnly) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from '%s' to '%v'", a.t.String(), typeDesc)
}

func (a receiverOnly) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case a.t:
		return a
	case types.TypeType:
		return a.t
	}
	return types.NewErr("type conversion error from '%s' to '%s'", a.t, typeVal)
}

func (a receiverOnly) Equal(other ref.Val) ref.Val {
	o, ok := other.(receiverOnly)
	return types.Bool(ok && a.t == o.t)
}

func (a receiverOnly) Type() ref.Type { return a.t }
func (a receiverOnly) Value() any     { return types.NoSuchOverloadErr() }

func receiverOf(t *celgo.Type) receiverOnly { return receiverOnly{t: types.NewTypeValue(t.String())} }

type authorizerVal struct {
	receiverOnly
	user  UserInfo
	authz Authorizer
}

type pathCheckVal struct {
	receiverOnly
	a    authorizerVal
	path string
}

type groupCheckVal struct {
	receiverOnly
	a     authorizerVal
	group string
}

type resourceCheckVal struct {
	receiverOnly
	g                                      groupCheckVal
	resource, subresource, namespace, name string
	fieldSelector, labelSelector           string
}

type decisionVal struct {
	receiverOnly
	err      error
	decision Decision
	reason   string
}

// NewAuthorizerValue is the value of the `authorizer` variable of admission policies.
func NewAuthorizerValue(user UserInfo, a Authorizer) ref.Val {
	return authorizerVal{receiverOnly: receiverOf(AuthorizerType), user: user, authz: a}
}

// NewResourceAuthorizerValue is `authorizer.requestResource`: a resource check prefilled with
// the request's group, resource, subresource, namespace and name.
func NewResourceAuthorizerValue(user UserInfo, a Authorizer, group, resource, subresource, namespace, name string) ref.Val {
	av := authorizerVal{receiverOnly: receiverOf(AuthorizerType), user: user, authz: a}
	g := groupCheckVal{receiverOnly: receiverOf(GroupCheckType), a: av, group: group}
	return resourceCheckVal{receiverOnly: receiverOf(ResourceCheckType), g: g, resource: resource,
		subresource: subresource, namespace: namespace, name: name}
}

// authzLib is kubernetes.authz; authzSelectorsLib is kubernetes.authzSelectors.
type authzLib struct{}

func (*authzLib) LibraryName() string { return "kubernetes.authz" }

func (*authzLib) CompileOptions() []celgo.EnvOption {
	str := celgo.StringType
	return []celgo.EnvOption{
		celgo.Function("path", celgo.MemberOverload("authorizer_path", []*celgo.Type{AuthorizerType, str}, PathCheckType, celgo.BinaryBinding(func(a1, a2 ref.Val) ref.Val {
			a, ok := a1.(authorizerVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a1)
			}
			p, ok := a2.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a1)
			}
			if len(strings.TrimSpace(p)) == 0 {
				return types.NewErr("path must not be empty")
			}
			return pathCheckVal{receiverOnly: receiverOf(PathCheckType), a: a, path: p}
		}))),
		celgo.Function("group", celgo.MemberOverload("authorizer_group", []*celgo.Type{AuthorizerType, str}, GroupCheckType, celgo.BinaryBinding(func(a1, a2 ref.Val) ref.Val {
			a, ok := a1.(authorizerVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a1)
			}
			g, ok := a2.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a1)
			}
			return groupCheckVal{receiverOnly: receiverOf(GroupCheckType), a: a, group: g}
		}))),
		celgo.Function("serviceAccount", celgo.MemberOverload("authorizer_serviceaccount", []*celgo.Type{AuthorizerType, str, str}, AuthorizerType, celgo.FunctionBinding(func(args ...ref.Val) ref.Val {
			if len(args) != 3 {
				return types.NoSuchOverloadErr()
			}
			a, ok := args[0].(authorizerVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(args[0])
			}
			ns, ok := args[1].Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(args[1])
			}
			name, ok := args[2].Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(args[2])
			}
			if len(validation.IsDNS1123Subdomain(name)) > 0 {
				return types.NewErr("Invalid service account name")
			}
			if len(validation.IsDNS1123Label(ns)) > 0 {
				return types.NewErr("Invalid service account namespace")
			}
			return authorizerVal{receiverOnly: receiverOf(AuthorizerType), authz: a.authz, user: UserInfo{
				Name:   "system:serviceaccount:" + ns + ":" + name,
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns},
			}}
		}))),
		celgo.Function("resource", celgo.MemberOverload("groupcheck_resource", []*celgo.Type{GroupCheckType, str}, ResourceCheckType, celgo.BinaryBinding(func(a1, a2 ref.Val) ref.Val {
			g, ok := a1.(groupCheckVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a1)
			}
			r, ok := a2.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a1)
			}
			if len(strings.TrimSpace(r)) == 0 {
				return types.NewErr("resource must not be empty")
			}
			return resourceCheckVal{receiverOnly: receiverOf(ResourceCheckType), g: g, resource: r}
		}))),
		resourceSetter("subresource", "resourcecheck_subresource", func(r *resourceCheckVal, s string) { r.subresource = s }),
		resourceSetter("namespace", "resourcecheck_namespace", func(r *resourceCheckVal, s string) { r.namespace = s }),
		resourceSetter("name", "resourcecheck_name", func(r *resourceCheckVal, s string) { r.name = s }),
		celgo.Function("check",
			celgo.MemberOverload("pathcheck_check", []*celgo.Type{PathCheckType, str}, DecisionType, celgo.BinaryBinding(func(a1, a2 ref.Val) ref.Val {
				p, ok := a1.(pathCheckVal)
				if !ok {
					return types.MaybeNoSuchOverloadErr(a1)
				}
				verb, ok := a2.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(a1)
				}
				return authorize(p.a, AuthzAttributes{Path: p.path, Verb: verb, User: p.a.user})
			})),
			celgo.MemberOverload("resourcecheck_check", []*celgo.Type{ResourceCheckType, str}, DecisionType, celgo.BinaryBinding(func(a1, a2 ref.Val) ref.Val {
				r, ok := a1.(resourceCheckVal)
				if !ok {
					return types.MaybeNoSuchOverloadErr(a1)
				}
				verb, ok := a2.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(a1)
				}
				return authorize(r.g.a, AuthzAttributes{ResourceRequest: true, APIGroup: r.g.group, APIVersion: "*",
					Resource: r.resource, Subresource: r.subresource, Namespace: r.namespace, Name: r.name, Verb: verb,
					User: r.g.a.user, FieldSelector: r.fieldSelector, LabelSelector: r.labelSelector})
			}))),
		decisionGetter("errored", "decision_errored", celgo.BoolType, func(d decisionVal) ref.Val { return types.Bool(d.err != nil) }),
		decisionGetter("error", "decision_error", str, func(d decisionVal) ref.Val {
			if d.err == nil {
				return types.String("")
			}
			return types.String(d.err.Error())
		}),
		decisionGetter("allowed", "decision_allowed", celgo.BoolType, func(d decisionVal) ref.Val { return types.Bool(d.decision == DecisionAllow) }),
		decisionGetter("reason", "decision_reason", str, func(d decisionVal) ref.Val { return types.String(d.reason) }),
	}
}

func (*authzLib) ProgramOptions() []celgo.ProgramOption { return nil }

func authorize(a authorizerVal, attrs AuthzAttributes) ref.Val {
	d := decisionVal{receiverOnly: receiverOf(DecisionType), decision: DecisionNoOpinion}
	if a.authz == nil {
		d.reason = "no authorizer"
		return d
	}
	d.decision, d.reason, d.err = a.authz.Authorize(attrs)
	return d
}

func resourceSetter(name, id string, set func(*resourceCheckVal, string)) celgo.EnvOption {
	return celgo.Function(name, celgo.MemberOverload(id, []*celgo.Type{ResourceCheckType, celgo.StringType}, ResourceCheckType,
		celgo.BinaryBinding(func(a1, a2 ref.Val) ref.Val {
			r, ok := a1.(resourceCheckVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a1)
			}
			s, ok := a2.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a1)
			}
			set(&r, s)
			return r
		})))
}

func decisionGetter(name, id string, result *celgo.Type, f func(decisionVal) ref.Val) celgo.EnvOption {
	return celgo.Function(name, celgo.MemberOverload(id, []*celgo.Type{DecisionType}, result, celgo.UnaryBinding(func(arg ref.Val) ref.Val {
		d, ok := arg.(decisionVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(d)
	})))
}

type authzSelectorsLib struct{}

func (*authzSelectorsLib) LibraryName() string { return "kubernetes.authzSelectors" }

func (*authzSelectorsLib) CompileOptions() []celgo.EnvOption {
	return []celgo.EnvOption{
		resourceSetter("fieldSelector", "authorizer_fieldselector", func(r *resourceCheckVal, s string) { r.fieldSelector = s }),
		resourceSetter("labelSelector", "authorizer_labelselector", func(r *resourceCheckVal, s string) { r.labelSelector = s }),
	}
}

func (*authzSelectorsLib) ProgramOptions() []celgo.ProgramOption { return nil }
