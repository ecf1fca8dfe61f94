package cel

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	celgo "github.com/google/cel-go/cel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"

	wcel "github.com/writepath/writepath/cel"
)

// decide is the fake policy both authorizers apply: a pure function of the attributes.
func decide(user, verb, path, group, resource, sub, ns, name string) (int, string, error) {
	key := strings.Join([]string{user, verb, path, group, resource, sub, ns, name}, "|")
	switch {
	case strings.Contains(key, "boom"):
		return 2, "", errors.New("authorizer failed: " + key)
	case verb == "get" || verb == "list" || strings.HasPrefix(user, "system:serviceaccount:kube-system:"):
		return 1, "allowed: " + key, nil
	case path != "":
		return 0, "path denied: " + key, nil
	}
	return 2, "no opinion: " + key, nil
}

type kAuthz struct{}

func (kAuthz) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	d, reason, err := decide(a.GetUser().GetName(), a.GetVerb(), a.GetPath(), a.GetAPIGroup(), a.GetResource(), a.GetSubresource(), a.GetNamespace(), a.GetName())
	return []authorizer.Decision{authorizer.DecisionDeny, authorizer.DecisionAllow, authorizer.DecisionNoOpinion}[d], reason, err
}

type wAuthz struct{}

func (wAuthz) Authorize(a wcel.AuthzAttributes) (wcel.Decision, string, error) {
	d, reason, err := decide(a.User.Name, a.Verb, a.Path, a.APIGroup, a.Resource, a.Subresource, a.Namespace, a.Name)
	return []wcel.Decision{wcel.DecisionDeny, wcel.DecisionAllow, wcel.DecisionNoOpinion}[d], reason, err
}

func authzExpression(r *rand.Rand) string {
	s := func() string {
		return celString(pick(r, "", " ", "apps", "deployments", "ns1", "boom", "default", "kube-system", "bad_name", "a/b", "x"))
	}
	base := pick(r, "authorizer", "authorizer.serviceAccount("+s()+", "+s()+")")
	var chk string
	switch r.IntN(3) {
	case 0:
		chk = base + ".path(" + celString(pick(r, "/healthz", "", " ", "/boom", "/apis")) + ")"
	default:
		chk = base + ".group(" + s() + ").resource(" + s() + ")"
		for i := 0; i < r.IntN(4); i++ {
			chk += pick(r, ".subresource(", ".namespace(", ".name(", ".fieldSelector(", ".labelSelector(") + s() + ")"
		}
	}
	chk += ".check(" + celString(pick(r, "get", "list", "delete", "create", "")) + ")"
	return chk + pick(r, ".allowed()", ".reason()", ".errored()", ".error()")
}

// TestAuthorizerAgrees evaluates the authorizer library's call chains through both
// implementations with the same fake policy: same values, errors and costs.
func TestAuthorizerAgrees(t *testing.T) {
	kenv, err := environment.MustBaseEnvSet(version.MajorMinor(1, 37)).NewExpressionsEnv().Extend(celgo.Variable("authorizer", library.AuthorizerType))
	require.NoError(t, err)
	wbase, err := wcel.BaseEnv(wcel.V1_37)
	require.NoError(t, err)
	wenv, err := wbase.Extend(celgo.Variable("authorizer", wcel.AuthorizerType))
	require.NoError(t, err)
	kval := library.NewAuthorizerVal(&user.DefaultInfo{Name: "alice"}, kAuthz{})
	wval := wcel.NewAuthorizerValue(wcel.UserInfo{Name: "alice"}, wAuthz{})
	r := rand.New(rand.NewPCG(13, 17))
	n := sampleSize(1000, 100000)
	disagreements := 0
	kinds := map[string]int{}
	for i := 0; i < n; i++ {
		expr := authzExpression(r)
		want := evalWith(kenv, &library.CostEstimator{}, expr, map[string]any{"authorizer": kval})
		got := evalWith(wenv, &wcel.CostEstimator{}, expr, map[string]any{"authorizer": wval})
		switch {
		case want.evalErr != "":
			kinds["error"]++
		case want.value == "types.Bool(true)":
			kinds["allowed/errored true"]++
		default:
			kinds["other value"]++
		}
		if !assert.Equal(t, want.String(), got.String(), expr) {
			disagreements++
			if disagreements > 10 {
				t.FailNow()
			}
		}
	}
	t.Logf("%d authorizer expressions compared (%v), %d disagreements", n, kinds, disagreements)
	require.Positive(t, kinds["error"])
	require.Positive(t, kinds["allowed/errored true"])
}

// evalWith compiles, estimates and evaluates expr in env with vars bound.
func evalWith(env *celgo.Env, estimator any, expr string, vars map[string]any) outcome {
	var o outcome
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		o.compileErr = iss.Err().Error()
		return o
	}
	switch e := estimator.(type) {
	case *library.CostEstimator:
		if c, err := env.EstimateCost(ast, e); err == nil {
			o.estMin, o.estMax = c.Min, c.Max
		}
	case *wcel.CostEstimator:
		if c, err := env.EstimateCost(ast, e); err == nil {
			o.estMin, o.estMax = c.Min, c.Max
		}
	}
	prog, err := env.Program(ast)
	if err != nil {
		o.compileErr = "program: " + err.Error()
		return o
	}
	val, det, err := prog.Eval(vars)
	if det != nil && det.ActualCost() != nil {
		o.cost = *det.ActualCost()
	}
	if err != nil {
		o.evalErr = err.Error()
		return o
	}
	o.value = render(val)
	return o
}

var _ = fmt.Sprint
