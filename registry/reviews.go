package registry

import (
	"context"
	"sort"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/rbac"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// Authenticator is what a World that authenticates bearer tokens implements: a TokenReview asks
// it (pkg/registry/authentication/tokenreview). A World without it answers a TokenReview as
// kube-apiserver without a token authenticator does: the review comes back as it was sent.
type Authenticator interface {
	// AuthenticateToken returns the user token authenticates, or false when it authenticates
	// none. The authenticator is audience-agnostic, as a static token file's is.
	AuthenticateToken(ctx context.Context, token string) (User, bool, error)
	// APIAudiences are the apiserver's --api-audiences (by default its service account issuer):
	// a review that names audiences authenticates only for those among them, and a review that
	// names none is made for these.
	APIAudiences() []string
}

// reviewKind names the review endpoints whose REST Create answers instead of storing.
func (e *endpoint) reviewKind() string {
	if e.builtin == nil || e.Subresource != "" {
		return ""
	}
	switch e.gvk.Group + "/" + e.gvk.Kind {
	case "authentication.k8s.io/TokenReview", "authentication.k8s.io/SelfSubjectReview",
		"authorization.k8s.io/SubjectAccessReview", "authorization.k8s.io/LocalSubjectAccessReview",
		"authorization.k8s.io/SelfSubjectAccessReview", "authorization.k8s.io/SelfSubjectRulesReview":
		return e.gvk.Kind
	}
	return ""
}

// review answers a review create (obj validated and its managedFields recorded): mutating
// admission, the kind's REST Create checks, validating admission, then the answer with code 201.
// Nothing is stored and the object gets no uid, creationTimestamp or resourceVersion, as the
// review RESTs return what they computed without storage.
func (h *handler) review(obj map[string]any) (Response, []Write, error) {
	kind := h.ep.reviewKind()
	mutated, err := h.mutate(admission.Create, obj, nil, "")
	if err != nil {
		return Response{}, nil, err
	}
	obj = ownedTop(mutated, obj)
	spec, _ := obj["spec"].(map[string]any)
	switch kind {
	case "TokenReview":
		if tok, _ := spec["token"].(string); tok == "" {
			return Response{}, nil, status.BadRequest("token is required for TokenReview in authentication")
		}
	case "SelfSubjectRulesReview":
		if ns, _ := spec["namespace"].(string); ns == "" {
			return Response{}, nil, status.BadRequest("no namespace on request")
		}
	}
	if err := h.validate(admission.Create, obj, nil, ""); err != nil {
		return Response{}, nil, err
	}
	var answer map[string]any
	switch kind {
	case "TokenReview":
		answer, err = h.tokenReview(obj, spec)
	case "SelfSubjectReview":
		answer = selfSubjectReview(obj, h.req)
	case "SelfSubjectRulesReview":
		answer, err = h.rulesReview(obj, spec)
	default:
		answer, err = h.accessReview(obj, spec, kind)
	}
	if err != nil {
		return Response{}, nil, err
	}
	resp, err := h.respond(201, answer)
	return resp, nil, err
}

// tokenReview is the TokenReview REST's Create: the token authenticated for the review's
// audiences (the API audiences when it names none) by an audience-agnostic authenticator, which
// authenticates only for the audiences it shares with the API's. The status the client sent is
// kept but for what the answer sets, as the REST sets fields of it.
func (h *handler) tokenReview(obj, spec map[string]any) (map[string]any, error) {
	a, ok := h.w.(Authenticator)
	if !ok {
		return obj, nil
	}
	st := map[string]any{}
	if old, ok := obj["status"].(map[string]any); ok {
		for k, v := range old {
			st[k] = v
		}
	}
	if _, ok := st["user"]; !ok {
		st["user"] = map[string]any{}
	}
	tok, _ := spec["token"].(string)
	auds := stringList(spec["audiences"])
	if len(auds) == 0 {
		auds = a.APIAudiences()
	}
	u, found, err := a.AuthenticateToken(h.ctx, tok)
	if err != nil {
		return nil, worldError(err, "AuthenticateToken")
	}
	var shared []string
	if found {
		// audAgnosticAuthenticator: the API audiences that the review asks for, in its order.
		api := a.APIAudiences()
		for _, aud := range auds {
			if containsString(api, aud) {
				shared = append(shared, aud)
			}
		}
		found = len(api) == 0 || len(shared) > 0
	}
	delete(st, "authenticated")
	if !found {
		// The union of the apiserver's token authenticators found no user and no error.
		st["error"] = "invalid bearer token"
	} else {
		st["authenticated"] = true
		st["user"] = userInfo(u)
		if len(shared) > 0 {
			st["audiences"] = anyStrings(shared)
		} else {
			delete(st, "audiences")
		}
	}
	out := copyTop(obj)
	out["status"] = st
	return out, nil
}

// selfSubjectReview is the SelfSubjectReview REST's Create: a new review holding the requesting
// user, created now; nothing of the request's body is kept.
func selfSubjectReview(obj map[string]any, req Request) map[string]any {
	return map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"],
		"metadata": map[string]any{"creationTimestamp": req.Now.UTC().Truncate(1e9).Format("2006-01-02T15:04:05Z")},
		"status":   map[string]any{"userInfo": userInfo(req.User)}}
}

// accessReview is the SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectAccessReview
// RESTs' Create: the review with the status the apiserver's authorizer decides (authorize).
func (h *handler) accessReview(obj, spec map[string]any, kind string) (map[string]any, error) {
	var u User
	if kind == "SelfSubjectAccessReview" {
		u = h.req.User
	} else {
		u = User{Name: stringOf(spec["user"]), UID: stringOf(spec["uid"]), Groups: stringList(spec["groups"]), Extra: extraOf(spec["extra"])}
	}
	a := rbac.Attributes{User: rbacUser(u)}
	if ra, ok := spec["resourceAttributes"].(map[string]any); ok {
		a.ResourceRequest = true
		a.Verb, a.Namespace, a.APIGroup = stringOf(ra["verb"]), stringOf(ra["namespace"]), stringOf(ra["group"])
		a.APIVersion, a.Resource, a.Subresource, a.Name = stringOf(ra["version"]), stringOf(ra["resource"]), stringOf(ra["subresource"]), stringOf(ra["name"])
	} else {
		nra, _ := spec["nonResourceAttributes"].(map[string]any)
		a.Verb, a.Path = stringOf(nra["verb"]), stringOf(nra["path"])
	}
	allowed, reason, evalErr := h.authorize(a)
	st := map[string]any{"allowed": allowed}
	if reason != "" {
		st["reason"] = reason
	}
	if evalErr != "" {
		st["evaluationError"] = evalErr
	}
	out := copyTop(obj)
	out["status"] = st
	return out, nil
}

// authorize is kube-apiserver's authorizer with --authorization-mode=RBAC: the system:masters
// group is allowed anything (with no reason), then RBAC over the stored policy. Neither denies;
// a request neither allows has RBAC's reason, prefixed "rbac: ". The evaluation error is "": RBAC reports its
// errors in the reason.
func (h *handler) authorize(a rbac.Attributes) (bool, string, string) {
	if containsString(a.User.Groups, "system:masters") {
		return true, "", ""
	}
	d, reason, err := rbac.Authorize(worldPolicy{h.ctx, h.w}, a)
	evalErr := ""
	if err != nil {
		evalErr = err.Error()
	}
	if d != rbac.Allow && reason != "" {
		// The authorizer chain names its RBAC authorizer "rbac" and prefixes the reason it gives
		// for no decision with the name; an allowing reason is RBAC's own (recorded from
		// kube-apiserver 1.37: testdata/cluster/scenarios/reviews.yaml).
		reason = "rbac: " + reason
	}
	return d == rbac.Allow, reason, evalErr
}

// rulesReview is the SelfSubjectRulesReview REST's Create: a new review (spec empty) listing the
// requesting user's rules in the review's namespace as RBAC lists them, a rule with resources
// as a resource rule and one with nonResourceURLs as a non-resource rule.
func (h *handler) rulesReview(obj, spec map[string]any) (map[string]any, error) {
	rules, errText := rbac.RulesFor(worldPolicy{h.ctx, h.w}, rbacUser(h.req.User), stringOf(spec["namespace"]))
	resourceRules, nonResourceRules := []any{}, []any{}
	for _, r := range rules {
		if len(r.Resources) > 0 {
			rr := map[string]any{"verbs": anyStringsOrNil(r.Verbs)}
			setList(rr, "apiGroups", r.APIGroups)
			setList(rr, "resources", r.Resources)
			setList(rr, "resourceNames", r.ResourceNames)
			resourceRules = append(resourceRules, rr)
		}
		if len(r.NonResourceURLs) > 0 {
			nr := map[string]any{"verbs": anyStringsOrNil(r.Verbs)}
			setList(nr, "nonResourceURLs", r.NonResourceURLs)
			nonResourceRules = append(nonResourceRules, nr)
		}
	}
	st := map[string]any{"resourceRules": resourceRules, "nonResourceRules": nonResourceRules, "incomplete": false}
	if errText != "" {
		st["evaluationError"] = errText
	}
	return map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": map[string]any{},
		"spec": map[string]any{}, "status": st}, nil
}

// worldPolicy is the stored RBAC objects as the World serves them, for rbac.
type worldPolicy struct {
	ctx context.Context
	w   World
}

var (
	clusterRoleBindingsResource = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}
	roleBindingsResource        = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}
	clusterRolesResource        = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}
	rolesResource               = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}
)

func (p worldPolicy) ClusterRoleBindings() ([]map[string]any, error) {
	return sortedByName(p.w.List(p.ctx, clusterRoleBindingsResource, ""))
}

func (p worldPolicy) RoleBindings(namespace string) ([]map[string]any, error) {
	return sortedByName(p.w.List(p.ctx, roleBindingsResource, namespace))
}

func (p worldPolicy) ClusterRole(name string) (map[string]any, error) {
	return p.w.Get(p.ctx, clusterRolesResource, "", name)
}

func (p worldPolicy) Role(namespace, name string) (map[string]any, error) {
	return p.w.Get(p.ctx, rolesResource, namespace, name)
}

// sortedByName orders a World's list (in any order) by name, so that answers do not depend on
// the World's order.
func sortedByName(objs []map[string]any, err error) ([]map[string]any, error) {
	if err != nil {
		return nil, err
	}
	out := append([]map[string]any(nil), objs...)
	sort.SliceStable(out, func(i, j int) bool { return metaString(out[i], "name") < metaString(out[j], "name") })
	return out, nil
}

func rbacUser(u User) rbac.User {
	return rbac.User{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}

// userInfo is authentication.k8s.io/v1 UserInfo of u: every field omitted when empty.
func userInfo(u User) map[string]any {
	m := map[string]any{}
	if u.Name != "" {
		m["username"] = u.Name
	}
	if u.UID != "" {
		m["uid"] = u.UID
	}
	if len(u.Groups) > 0 {
		m["groups"] = anyStrings(u.Groups)
	}
	if len(u.Extra) > 0 {
		e := make(map[string]any, len(u.Extra))
		for k, v := range u.Extra {
			e[k] = anyStrings(v)
		}
		m["extra"] = e
	}
	return m
}

func extraOf(v any) map[string][]string {
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, x := range m {
		out[k] = stringList(x)
	}
	return out
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

func stringList(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func anyStrings(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// anyStringsOrNil is a list that the Go type does not omit: null when the rule has none.
func anyStringsOrNil(s []string) any {
	if s == nil {
		return nil
	}
	return anyStrings(s)
}

func setList(m map[string]any, k string, s []string) {
	if len(s) > 0 {
		m[k] = anyStrings(s)
	}
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func copyTop(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj)+1)
	for k, v := range obj {
		out[k] = v
	}
	return out
}
