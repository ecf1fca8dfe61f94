package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/status"
)

// RuntimeCELCostBudget is the cost budget of one policy binding's evaluation
// (celconfig.RuntimeCELCostBudget).
const RuntimeCELCostBudget = cel.RuntimeCELCostBudget

// maxAuditAnnotationValueLength truncates audit annotation values.
const maxAuditAnnotationValueLength = 10 * 1024

type paramKind struct{ apiVersion, kind string }

// String prints like the generated ParamKind.String().
func (p paramKind) String() string {
	return fmt.Sprintf("&ParamKind{APIVersion:%s,Kind:%s,}", p.apiVersion, p.kind)
}

type validation struct {
	prog    program
	msgProg *program
	message string
	reason  string
}

type auditAnnotation struct {
	key  string
	prog program
	expr string
}

type namedProgram struct {
	name string
	prog program
}

// policyCore holds what validating and mutating policies share.
type policyCore struct {
	name        string
	failPolicy  string
	match       *matchResources
	paramKind   *paramKind
	conditions  []namedProgram
	varNames    map[string]int
	varProgs    []program
	configError string
	// params presents param objects to CEL, once per object (params.go).
	params *paramView
}

// vap is a compiled ValidatingAdmissionPolicy with its bindings.
type vap struct {
	policyCore
	validations []validation
	audits      []auditAnnotation
	bindings    []*binding
}

type paramRef struct {
	name, namespace string
	selector        *selector
	hasSelector     bool
	notFoundAction  string
}

type binding struct {
	name     string
	paramRef *paramRef
	match    *matchResources
	actions  []string
}

func getMap(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		n, _ := m[k].(map[string]any)
		m = n
	}
	return m
}

func getString(m map[string]any, keys ...string) string {
	if len(keys) == 0 {
		return ""
	}
	s, _ := getMap(m, keys[:len(keys)-1]...)[keys[len(keys)-1]].(string)
	return s
}

func compileCore(name string, spec map[string]any) (policyCore, *compiler, error) {
	pc := policyCore{name: name, failPolicy: "Fail", params: &paramView{}}
	if fp, ok := spec["failurePolicy"].(string); ok {
		pc.failPolicy = fp
	}
	var err error
	pc.match, err = parseMatchResources(getMap(spec, "matchConstraints"), true)
	if err != nil {
		pc.configError = err.Error()
	}
	if pk := getMap(spec, "paramKind"); pk != nil {
		pc.paramKind = &paramKind{apiVersion: getString(pk, "apiVersion"), kind: getString(pk, "kind")}
	}
	var vars []namedExpr
	vs, _ := spec["variables"].([]any)
	pc.varNames = map[string]int{}
	for _, v := range vs {
		vm, _ := v.(map[string]any)
		n := getString(vm, "name")
		pc.varNames[n] = len(vars)
		vars = append(vars, namedExpr{Name: n, Expr: getString(vm, "expression")})
	}
	c, progs, err := newCompiler(pc.paramKind != nil, vars)
	if err != nil {
		return pc, nil, err
	}
	pc.varProgs = progs
	mcs, _ := spec["matchConditions"].([]any)
	for _, x := range mcs {
		m, _ := x.(map[string]any)
		pc.conditions = append(pc.conditions, namedProgram{name: getString(m, "name"),
			prog: c.compile(getString(m, "expression"), []*celgo.Type{celgo.BoolType})})
	}
	return pc, c, nil
}

func compileVAP(obj map[string]any) (*vap, error) {
	spec := getMap(obj, "spec")
	pc, c, err := compileCore(getString(obj, "metadata", "name"), spec)
	if err != nil {
		return nil, err
	}
	p := &vap{policyCore: pc}
	// messageExpressions are compiled without authorizer (compilePolicy's
	// expressionOptionalVars).
	msgEnv, err := admissionEnvFor(pc.paramKind != nil, false)
	if err != nil {
		return nil, err
	}
	mc, err := c.in(msgEnv)
	if err != nil {
		return nil, err
	}
	vals, _ := spec["validations"].([]any)
	for _, x := range vals {
		m, _ := x.(map[string]any)
		v := validation{prog: c.compile(getString(m, "expression"), []*celgo.Type{celgo.BoolType}),
			message: getString(m, "message"), reason: getString(m, "reason")}
		if me := getString(m, "messageExpression"); me != "" {
			mp := mc.compile(me, []*celgo.Type{celgo.StringType})
			v.msgProg = &mp
		}
		p.validations = append(p.validations, v)
	}
	aas, _ := spec["auditAnnotations"].([]any)
	for _, x := range aas {
		m, _ := x.(map[string]any)
		ve := getString(m, "valueExpression")
		p.audits = append(p.audits, auditAnnotation{key: getString(m, "key"), expr: ve,
			prog: c.compile(ve, []*celgo.Type{celgo.StringType, celgo.NullType})})
	}
	return p, nil
}

func parseBinding(obj map[string]any) (*binding, string, error) {
	spec := getMap(obj, "spec")
	b := &binding{name: getString(obj, "metadata", "name"), actions: stringList(spec["validationActions"])}
	if mr := getMap(spec, "matchResources"); mr != nil {
		m, err := parseMatchResources(mr, true)
		if err != nil {
			return nil, "", err
		}
		b.match = m
	}
	if pr := getMap(spec, "paramRef"); pr != nil {
		r := &paramRef{name: getString(pr, "name"), namespace: getString(pr, "namespace"),
			notFoundAction: getString(pr, "parameterNotFoundAction")}
		if sel, ok := pr["selector"]; ok && sel != nil {
			s, err := parseSelector(sel)
			if err != nil {
				return nil, "", err
			}
			if s == nil {
				s = &selector{}
			}
			r.selector, r.hasSelector = s, true
		}
		b.paramRef = r
	}
	return b, getString(spec, "policyName"), nil
}

// decision is a PolicyDecision.
type decision struct {
	deny    bool
	message string
	reason  string
}

type auditResult struct {
	key, value, err string
	publish         bool
	isErr           bool
}

// requestValues are the CEL values of one request, shared by every
// evaluation that sees the same object.
type requestValues struct {
	object, oldObject, namespace any
	authz, authzRes              any
	// request is built the first time an expression reads it.
	req     *Request
	request any
	// matchRequest, when set, is the request match conditions see under an
	// equivalent match: the matched kind but the request's own resource
	// (matchconditions.Matcher builds it from versionedAttr.GetResource()).
	matchRequest any
}

func (rv *requestValues) requestValue() any {
	if rv.request == nil {
		rv.request = cel.RequestValue(celRequest(rv.req))
	}
	return rv.request
}

func (c *Chain) requestValues(req *Request, obj map[string]any) *requestValues {
	rv := &requestValues{
		object:    celValue(nilIfEmpty(obj)),
		oldObject: celValue(nilIfEmpty(req.OldObject)),
		req:       req,
		namespace: c.namespaceObject(req),
	}
	if req.Operation == Delete {
		rv.object = types.NullValue
	}
	if c.cfg.Authorizer != nil {
		u := cel.UserInfo{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups, Extra: req.UserInfo.Extra}
		rv.authz = cel.NewAuthorizerValue(u, c.cfg.Authorizer)
		rv.authzRes = cel.NewResourceAuthorizerValue(u, c.cfg.Authorizer, req.Resource.Group, req.Resource.Resource, req.SubResource, req.Namespace, req.Name)
	}
	return rv
}

// newActivation builds the variables of one evaluation.
func (c *Chain) newActivation(ctx context.Context, pc *policyCore, rv *requestValues, param map[string]any) *activation {
	act := &activation{object: rv.object, oldObject: rv.oldObject, rv: rv, namespace: rv.namespace,
		params: types.NullValue, authz: rv.authz, authzRes: rv.authzRes}
	if param != nil {
		act.params = pc.params.value(param, pc.paramKind)
	}
	act.vars = &lazyVariables{ctx: ctx, names: pc.varNames, progs: pc.varProgs, act: act}
	if n := len(pc.varProgs); n > 0 {
		act.vars.results, act.vars.done = make([]ref.Val, n), make([]bool, n)
	}
	return act
}

func nilIfEmpty(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

// matchConditions runs the match conditions: (matches, error message).
func (pc *policyCore) matchConditions(ctx context.Context, act *activation) (bool, string) {
	// The matcher evaluates with no namespace (namespaceObject is null) and
	// its own composition context: variables are evaluated afresh.
	mact := *act
	mact.namespace = types.NullValue
	if act.vars != nil {
		v := *act.vars
		v.act, v.cost = &mact, 0
		if n := len(v.progs); n > 0 {
			v.results, v.done = make([]ref.Val, n), make([]bool, n)
		}
		mact.vars = &v
	}
	if act.rv != nil && act.rv.matchRequest != nil {
		rv := *act.rv
		rv.request = rv.matchRequest
		mact.rv = &rv
	}
	act = &mact
	budget := int64(matchConditionsBudget)
	var errs []string
	for _, mc := range pc.conditions {
		r, err := eval(ctx, mc.prog, act, &budget)
		if err != nil {
			if pc.failPolicy == "Ignore" {
				return false, ""
			}
			return false, err.Error()
		}
		if r.err != "" {
			errs = append(errs, r.err)
			continue
		}
		if r.val == types.False {
			return false, ""
		}
	}
	if len(errs) > 0 {
		if pc.failPolicy == "Ignore" {
			return false, ""
		}
		return false, aggregate(errs)
	}
	return true, ""
}

// aggregate prints like utilerrors.NewAggregate(errs).Error().
func aggregate(msgs []string) string {
	if len(msgs) == 1 {
		return msgs[0]
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range msgs {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func (pc *policyCore) errorDecision(msg string) decision {
	return decision{deny: pc.failPolicy != "Ignore", message: msg}
}

// validate is the validator's Validate for one param.
func (p *vap) validate(ctx context.Context, act *activation) ([]decision, []auditResult) {
	if len(p.conditions) > 0 {
		ok, msg := p.matchConditions(ctx, act)
		if msg != "" {
			return []decision{p.errorDecision(msg)}, nil
		}
		if !ok {
			return nil, nil
		}
	}
	budget := int64(RuntimeCELCostBudget)
	results := make([]evalResult, len(p.validations))
	for i, v := range p.validations {
		r, err := eval(ctx, v.prog, act, &budget)
		if err != nil {
			return []decision{p.errorDecision(err.Error())}, nil
		}
		results[i] = r
	}
	// messageExpressions share what is left of the budget.
	msgs := make([]evalResult, len(p.validations))
	var msgErr error
	for i, v := range p.validations {
		if msgErr != nil {
			break
		}
		if v.msgProg == nil || results[i].err != "" || results[i].val == types.True {
			continue
		}
		r, err := eval(ctx, *v.msgProg, act, &budget)
		if err != nil {
			msgErr = err
			break
		}
		msgs[i] = r
	}
	decisions := make([]decision, len(p.validations))
	for i, v := range p.validations {
		r := results[i]
		switch {
		case r.err != "":
			decisions[i] = p.errorDecision(r.err)
		case msgErr != nil:
			decisions[i] = p.errorDecision(fmt.Sprintf("failed messageExpression: %s", msgErr))
		case r.val != types.True:
			d := decision{deny: true, reason: v.reason}
			if d.reason == "" {
				d.reason = string(status.ReasonInvalid)
			}
			var message string
			if mr := msgs[i]; mr.err == "" && mr.val != nil {
				if s, ok := mr.val.Value().(string); ok {
					message = trimmed(s)
					if len(message) > maxMessageSize || strings.Contains(message, "\n") {
						message = ""
					}
				}
			}
			if message == "" {
				message = trimmed(v.message)
			}
			if message == "" {
				message = fmt.Sprintf("failed expression: %v", trimmed(v.prog.Expr))
			}
			d.message = message
			decisions[i] = d
		}
	}
	audits := make([]auditResult, 0, len(p.audits))
	abudget := int64(RuntimeCELCostBudget)
	for _, a := range p.audits {
		r, err := eval(ctx, a.prog, act, &abudget)
		if err != nil {
			return []decision{p.errorDecision(err.Error())}, nil
		}
		ar := auditResult{key: a.key}
		switch {
		case r.err != "":
			if p.failPolicy != "Ignore" {
				ar.isErr, ar.err = true, r.err
			}
		case r.val.Type() == types.StringType:
			if v := trimmed(r.val.Value().(string)); v != "" {
				ar.publish, ar.value = true, v
			}
		case r.val.Type() == types.NullType:
		default:
			ar.isErr = true
			ar.err = fmt.Sprintf("valueExpression '%v' resulted in unsupported return type: %v. Return type must be either string or null.", a.expr, r.val.Type())
		}
		audits = append(audits, ar)
	}
	return decisions, audits
}

// validationFailure is one entry of the validation_failure audit annotation.
type validationFailure struct {
	Message           string   `json:"message"`
	Policy            string   `json:"policy"`
	Binding           string   `json:"binding"`
	ExpressionIndex   int      `json:"expressionIndex"`
	ValidationActions []string `json:"validationActions"`
}

type deniedDecision struct {
	decision
	policy, binding string
	hasBinding      bool
}

// params collects a binding's params (generic.CollectParams).
func (c *Chain) params(pk *paramKind, ref *paramRef, namespace string) ([]map[string]any, bool, error) {
	if pk == nil || ref == nil {
		return nil, true, nil
	}
	namespaced := c.paramNamespaced(pk)
	ns := ""
	if namespaced {
		ns = namespace
		if ref.namespace != "" {
			ns = ref.namespace
		} else if ns == "" {
			return nil, false, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	} else if ref.namespace != "" {
		return nil, false, errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	}
	var out []map[string]any
	switch {
	case ref.name != "":
		if ref.hasSelector {
			return nil, false, errors.New("paramRef.name and paramRef.selector are mutually exclusive")
		}
		for _, p := range c.lookup.Params(pk.apiVersion, pk.kind) {
			if isKind(p, pk) && getString(p, "metadata", "name") == ref.name && getString(p, "metadata", "namespace") == ns {
				out = append(out, p)
				break
			}
		}
	case ref.hasSelector:
		for _, p := range c.lookup.Params(pk.apiVersion, pk.kind) {
			if isKind(p, pk) && (!namespaced || getString(p, "metadata", "namespace") == ns) && ref.selector.matches(labelsOf(p)) {
				out = append(out, p)
			}
		}
		sort.SliceStable(out, func(i, j int) bool {
			return getString(out[i], "metadata", "namespace")+"/"+getString(out[i], "metadata", "name") <
				getString(out[j], "metadata", "namespace")+"/"+getString(out[j], "metadata", "name")
		})
	default:
		return nil, false, errors.New("one of name or selector must be provided")
	}
	if len(out) == 0 && ref.notFoundAction == "Deny" {
		return nil, false, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	return out, false, nil
}

func isKind(obj map[string]any, pk *paramKind) bool {
	return getString(obj, "apiVersion") == pk.apiVersion && getString(obj, "kind") == pk.kind
}

// clusterScopedKinds lists built-in cluster-scoped kinds that can be params.
var clusterScopedKinds = map[string]bool{
	"v1/Namespace": true, "v1/Node": true, "v1/PersistentVolume": true,
	"rbac.authorization.k8s.io/v1/ClusterRole": true, "rbac.authorization.k8s.io/v1/ClusterRoleBinding": true,
	"storage.k8s.io/v1/StorageClass": true, "apiextensions.k8s.io/v1/CustomResourceDefinition": true,
	"scheduling.k8s.io/v1/PriorityClass": true,
}

// paramNamespaced decides the param kind's scope: built-in kinds by the table,
// others by the params supplied (namespaced when any has a namespace).
func (c *Chain) paramNamespaced(pk *paramKind) bool {
	if ns, ok := builtinParamScope(pk); ok {
		return ns
	}
	if clusterScopedKinds[pk.apiVersion+"/"+pk.kind] {
		return false
	}
	if !strings.Contains(pk.apiVersion, ".") && strings.Count(pk.apiVersion, "/") <= 1 && !strings.Contains(pk.apiVersion, "/") {
		return true // core group kinds are namespaced unless listed
	}
	for _, p := range c.lookup.Params(pk.apiVersion, pk.kind) {
		if isKind(p, pk) && getString(p, "metadata", "namespace") != "" {
			return true
		}
	}
	for _, p := range c.lookup.Params(pk.apiVersion, pk.kind) {
		if isKind(p, pk) {
			return false
		}
	}
	return true
}

// namespaceObject is the `namespaceObject` variable (CreateNamespaceObject).
func (c *Chain) namespaceObject(req *Request) any {
	name := req.Namespace
	if req.Kind.Group == "" && req.Kind.Version == "v1" && req.Kind.Kind == "Namespace" {
		name = ""
	}
	if name == "" {
		return types.NullValue
	}
	if l, ok := c.lookup.(*staticLookup); ok {
		if v, ok := l.nsValues[name]; ok {
			return v
		}
		return types.NullValue
	}
	if ns, ok := c.lookup.Namespace(name); ok {
		return namespaceValue(ns)
	}
	return types.NullValue
}

// namespaceValue is the `namespaceObject` variable: the corev1.Namespace
// CreateNamespaceObject builds (a subset of metadata, spec and status), as
// SchemalessTypedToVal shows it: empty fields left out but for spec, status
// and conditions' lastTransitionTime (null when unset), which are structs
// and always present.
func namespaceValue(ns map[string]any) any {
	md := getMap(ns, "metadata")
	m := map[string]any{}
	for _, k := range []string{"name", "generateName", "namespace", "uid", "resourceVersion", "generation",
		"creationTimestamp", "deletionGracePeriodSeconds", "deletionTimestamp", "labels", "annotations", "finalizers"} {
		if v, ok := md[k]; ok && !emptyJSON(v) {
			m[k] = v
		}
	}
	spec := map[string]any{}
	if f, ok := getMap(ns, "spec")["finalizers"]; ok && !emptyJSON(f) {
		spec["finalizers"] = f
	}
	st := map[string]any{}
	src := getMap(ns, "status")
	if p, ok := src["phase"]; ok && !emptyJSON(p) {
		st["phase"] = p
	}
	if cs, ok := src["conditions"].([]any); ok && len(cs) > 0 {
		out := make([]any, len(cs))
		for i, c := range cs {
			cm, _ := c.(map[string]any)
			o := map[string]any{"type": stringOr(cm["type"]), "status": stringOr(cm["status"]), "lastTransitionTime": cm["lastTransitionTime"]}
			for _, k := range []string{"reason", "message"} {
				if v, ok := cm[k]; ok && !emptyJSON(v) {
					o[k] = v
				}
			}
			out[i] = o
		}
		st["conditions"] = out
	}
	return cel.NamespaceValue(map[string]any{"metadata": m, "spec": spec, "status": st})
}

// emptyJSON is encoding/json's omitempty test on a decoded value.
func emptyJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	case int64:
		return x == 0
	case int:
		return x == 0
	case float64:
		return x == 0
	}
	return false
}

func stringOr(v any) string {
	s, _ := v.(string)
	return s
}

// runVAPs is the ValidatingAdmissionPolicy plugin's Validate.
func (c *Chain) runVAPs(ctx context.Context, req *Request, obj map[string]any, res *Result) error {
	var denied []deniedDecision
	var failures []validationFailure
	configErr := func(pc *policyCore, b *binding, err string) {
		switch pc.failPolicy {
		case "Ignore":
		case "Fail":
			msg := "failed to configure policy: " + err
			if b != nil {
				msg = "failed to configure binding: " + err
			}
			d := deniedDecision{decision: decision{deny: true, message: msg}, policy: pc.name}
			if b != nil {
				d.binding, d.hasBinding = b.name, true
			}
			denied = append(denied, d)
		default:
			denied = append(denied, deniedDecision{decision: decision{deny: true, message: fmt.Sprintf("unrecognized failure policy: '%v'", pc.failPolicy)}, policy: pc.name})
		}
	}
	r := *req
	r.Object = obj
	rvs := map[matchedAs]*requestValues{}
	for _, p := range c.vaps {
		ok, as, err := p.match.matchesAs(&r, c)
		if err != nil {
			configErr(&p.policyCore, nil, err.Error())
			continue
		}
		if !ok {
			continue
		}
		if p.configError != "" {
			configErr(&p.policyCore, nil, p.configError)
			continue
		}
		collected := map[string][]string{}
		var keys []string
		for _, b := range p.bindings {
			if b.match != nil {
				ok, err := b.match.matches(&r, c)
				if err != nil {
					configErr(&p.policyCore, b, err.Error())
					continue
				}
				if !ok {
					continue
				}
			}
			params, none, err := c.params(p.paramKind, b.paramRef, req.Namespace)
			if err != nil {
				configErr(&p.policyCore, b, err.Error())
				continue
			}
			if none {
				params = []map[string]any{nil}
			}
			rv, err := c.vapValues(&r, obj, as, rvs, len(params))
			if err != nil {
				configErr(&p.policyCore, b, err.Error())
				continue
			}
			for _, param := range params {
				act := c.newActivation(ctx, &p.policyCore, rv, param)
				decs, audits := p.validate(ctx, act)
				for i, d := range decs {
					if !d.deny {
						continue
					}
					for _, a := range b.actions {
						switch a {
						case "Deny":
							denied = append(denied, deniedDecision{decision: d, policy: p.name, binding: b.name, hasBinding: true})
						case "Audit":
							failures = append(failures, validationFailure{ExpressionIndex: i, Message: d.message,
								ValidationActions: b.actions, Binding: b.name, Policy: p.name})
						case "Warn":
							res.Warnings = append(res.Warnings, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", p.name, b.name, d.message))
						}
					}
				}
				for _, a := range audits {
					switch {
					case a.isErr:
						denied = append(denied, deniedDecision{decision: decision{deny: true, message: a.err}, policy: p.name, binding: b.name, hasBinding: true})
					case a.publish:
						v := a.value
						if len(v) > maxAuditAnnotationValueLength {
							v = v[:maxAuditAnnotationValueLength]
						}
						if _, seen := collected[a.key]; !seen {
							keys = append(keys, a.key)
						}
						if !slices.Contains(collected[a.key], v) {
							collected[a.key] = append(collected[a.key], v)
						}
					}
				}
			}
		}
		for _, k := range keys {
			res.addAudit(p.name+"/"+k, strings.Join(collected[k], ", "))
		}
	}
	if len(failures) > 0 {
		if len(failures) > 50 {
			failures = failures[:50]
		}
		b, _ := json.Marshal(failures)
		res.addAudit("validation.policy.admission.k8s.io/validation_failure", string(b))
	}
	if len(denied) == 0 {
		return nil
	}
	d := denied[0]
	var msg string
	if d.hasBinding {
		msg = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.policy, d.binding, d.message)
	} else {
		msg = fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", d.policy, d.message)
	}
	st := forbidden(req, obj, errors.New(msg))
	reason := d.reason
	if reason == "" {
		reason = string(status.ReasonInvalid)
	}
	st.Reason = status.Reason(reason)
	st.Code = reasonToCode(reason)
	st.Details.Causes = append(st.Details.Causes, status.Cause{Message: msg})
	return st
}

func reasonToCode(r string) int32 {
	switch status.Reason(r) {
	case status.ReasonForbidden:
		return http.StatusForbidden
	case status.ReasonUnauthorized:
		return http.StatusUnauthorized
	case status.ReasonRequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusUnprocessableEntity
}

// forbidden is admission.NewForbidden: the name is the request's, else the
// object's name or generateName, else "Unknown".
func forbidden(req *Request, obj map[string]any, err error) *status.Error {
	name := req.Name
	if name == "" {
		name = "Unknown"
		if obj != nil {
			if n := getString(obj, "metadata", "name"); n != "" {
				name = n
			} else if g := getString(obj, "metadata", "generateName"); g != "" {
				name = g
			}
		}
	}
	return status.Forbidden(status.GroupResource{Group: req.Resource.Group, Resource: req.Resource.Resource}, name, err)
}

// celRequest is the `request` variable (CreateAdmissionRequest), as JSON:
// the review request without the objects.
func celRequest(req *Request) map[string]any {
	r := *req
	r.Object, r.OldObject = nil, nil
	m := reviewRequest(&r, req.Kind, req.Resource, req.SubResource, "")
	delete(m, "object")
	delete(m, "oldObject")
	return m
}
