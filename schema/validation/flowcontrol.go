package validation

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// FlowSchema and PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1) as
// pkg/apis/flowcontrol/validation and their strategies validate them. An update is validated as
// a create (the strategies check no metadata transition); /status validates the conditions
// alone. The mandatory objects ("exempt" and "catch-all") must keep the apiserver's fixed
// spec (the exempt priority level but for its spec.exempt). PriorityLevelConfiguration's union
// members (exempt, limited, and the limit response's queuing) carry 1.37's enforced (beta)
// declarative rules, which replace the hand-written errors they match and come after them.

func validateFlowSchema(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	name := str(mapOf(obj["metadata"]), "name")
	spec := mapOf(obj["spec"])
	errs = append(errs, flowSchemaSpec(name, spec)...)
	if mand, ok := mandatoryFlowSchemas[name]; ok {
		if have := flowSchemaSpecValue(spec); !reflect.DeepEqual(normalizeFlowSchemaSpec(have), mand) {
			errs = append(errs, field.Invalid(field.NewPath("spec"), have, fmt.Sprintf("spec of '%s' must equal the fixed value", name)))
		}
	}
	return distinct(append(errs, flowcontrolConditions(listOf(mapOf(obj["status"])["conditions"]))...))
}

func validateFlowSchemaUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	switch opts.Subresource {
	case "status":
		return distinct(flowcontrolConditions(listOf(mapOf(obj["status"])["conditions"])))
	case "":
		return validateFlowSchema(obj, opts)
	}
	return nil
}

// flowcontrolConditions is the status conditions' rule of both kinds: a type, once.
func flowcontrolConditions(conds []any) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("status", "conditions")
	seen := make(map[string]bool, len(conds))
	for i, raw := range conds {
		typ := str(mapOf(raw), "type")
		if seen[typ] {
			errs = append(errs, field.Duplicate(p.Index(i).Child("type"), typ))
		}
		seen[typ] = true
		if typ == "" {
			errs = append(errs, field.Required(p.Index(i).Child("type"), ""))
		}
	}
	return errs
}

func flowSchemaSpec(name string, spec map[string]any) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec")
	mp := p.Child("matchingPrecedence")
	prec, _ := integer(spec, "matchingPrecedence")
	if prec <= 0 {
		errs = append(errs, field.Invalid(mp, prec, "must be a positive value"))
	}
	if prec > 10000 {
		errs = append(errs, field.Invalid(mp, prec, "must not be greater than 10000"))
	}
	if prec == 1 && name != "exempt" {
		errs = append(errs, field.Invalid(mp, prec, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if dm, ok := spec["distinguisherMethod"].(map[string]any); ok {
		if t := str(dm, "type"); t != "ByNamespace" && t != "ByUser" {
			errs = append(errs, field.NotSupported(p.Child("distinguisherMethod", "type"), distinguisherJSON{t}, []string{"ByNamespace", "ByUser"}))
		}
	}
	plp := p.Child("priorityLevelConfiguration", "name")
	if pl := str(mapOf(spec["priorityLevelConfiguration"]), "name"); pl != "" {
		errs = append(errs, invalids(plp, pl, validation.NameIsDNSSubdomain(pl, false))...)
	} else {
		errs = append(errs, field.Required(plp, "must reference a priority level"))
	}
	for i, r := range listOf(spec["rules"]) {
		errs = append(errs, flowSchemaRule(p.Child("rules").Index(i), mapOf(r))...)
	}
	return errs
}

func flowSchemaRule(p field.Path, rule map[string]any) field.ErrorList {
	var errs field.ErrorList
	subjects := listOf(rule["subjects"])
	if len(subjects) == 0 {
		errs = append(errs, field.Required(p.Child("subjects"), "subjects must contain at least one value"))
	}
	for i, s := range subjects {
		errs = append(errs, flowSchemaSubject(p.Child("subjects").Index(i), mapOf(s))...)
	}
	res, nonRes := listOf(rule["resourceRules"]), listOf(rule["nonResourceRules"])
	if len(res) == 0 && len(nonRes) == 0 {
		errs = append(errs, field.Required(p, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i, r := range res {
		errs = append(errs, resourcePolicyRule(p.Child("resourceRules").Index(i), mapOf(r))...)
	}
	for i, r := range nonRes {
		errs = append(errs, nonResourcePolicyRule(p.Child("nonResourceRules").Index(i), mapOf(r))...)
	}
	return errs
}

// flowSchemaSubject: the member the kind names, and no other.
func flowSchemaSubject(p field.Path, s map[string]any) field.ErrorList {
	var errs field.ErrorList
	kind := str(s, "kind")
	others := func(except string) {
		for _, m := range [][3]string{{"user", "User", "user"}, {"group", "Group", "group"}, {"serviceAccount", "ServiceAccount", "serviceAccount"}} {
			if m[0] != except && has(s, m[0]) {
				errs = append(errs, field.Forbidden(p.Child(m[0]), fmt.Sprintf("%s is forbidden when subject kind is not '%s'", m[2], m[1])))
			}
		}
	}
	switch kind {
	case "ServiceAccount":
		sa, ok := s["serviceAccount"].(map[string]any)
		sp := p.Child("serviceAccount")
		if !ok {
			errs = append(errs, field.Required(sp, "serviceAccount is required when subject kind is 'ServiceAccount'"))
		} else {
			switch n := str(sa, "name"); n {
			case "":
				errs = append(errs, field.Required(sp.Child("name"), ""))
			case "*":
			default:
				errs = append(errs, invalids(sp.Child("name"), n, validation.NameIsDNSSubdomain(n, false))...)
			}
			if ns := str(sa, "namespace"); ns != "" {
				errs = append(errs, invalids(sp.Child("namespace"), ns, validation.NameIsDNSLabel(ns, false))...)
			} else {
				errs = append(errs, field.Required(sp.Child("namespace"), "must specify namespace for service account"))
			}
		}
		others("serviceAccount")
	case "User", "Group":
		key := strings.ToLower(kind)
		if m, ok := s[key].(map[string]any); !ok {
			errs = append(errs, field.Required(p.Child(key), fmt.Sprintf("%s is required when subject kind is '%s'", key, kind)))
		} else if str(m, "name") == "" {
			errs = append(errs, field.Required(p.Child(key, "name"), ""))
		}
		others(key)
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), kind, []string{"Group", "ServiceAccount", "User"}))
	}
	return errs
}

var flowcontrolVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}

// policyVerbs: at least one, '*' alone, else each a supported verb.
func policyVerbs(p field.Path, verbs []string) field.ErrorList {
	switch {
	case len(verbs) == 0:
		return field.ErrorList{field.Required(p, "verbs must contain at least one value")}
	case contains(verbs, "*"):
		if len(verbs) > 1 {
			return field.ErrorList{field.Invalid(p, verbs, "if '*' is present, must not specify other verbs")}
		}
	default:
		for _, v := range verbs {
			if !contains(flowcontrolVerbs, v) {
				return field.ErrorList{field.NotSupported(p, verbs, flowcontrolVerbs)}
			}
		}
	}
	return nil
}

func nonResourcePolicyRule(p field.Path, rule map[string]any) field.ErrorList {
	errs := policyVerbs(p.Child("verbs"), stringList(rule["verbs"]))
	urls := stringList(rule["nonResourceURLs"])
	up := p.Child("nonResourceURLs")
	switch {
	case len(urls) == 0:
		errs = append(errs, field.Required(up, "nonResourceURLs must contain at least one value"))
	case contains(urls, "*"):
		if len(urls) > 1 {
			errs = append(errs, field.Invalid(up, urls, "if '*' is present, must not specify other non-resource URLs"))
		}
	default:
		for i, u := range urls {
			if msg := nonResourceURLPath(u); msg != "" {
				errs = append(errs, field.Invalid(up.Index(i), u, msg))
			}
		}
	}
	return errs
}

// nonResourceURLPath is ValidateNonResourceURLPath's detail ("" when valid).
func nonResourceURLPath(u string) string {
	switch {
	case u == "":
		return "must not be empty"
	case u == "/":
		return ""
	case !strings.HasPrefix(u, "/"):
		return "must start with slash"
	case strings.Contains(u, " "):
		return "must not contain white-space"
	case strings.Contains(u, "//"):
		return "must not contain double slash"
	}
	if n := strings.Count(u, "*"); n > 1 || (n == 1 && u[len(u)-2:] != "/*") {
		return "wildcard can only do suffix matching"
	}
	return ""
}

func resourcePolicyRule(p field.Path, rule map[string]any) field.ErrorList {
	errs := policyVerbs(p.Child("verbs"), stringList(rule["verbs"]))
	for _, f := range [][2]string{{"apiGroups", "api group"}, {"resources", "resource"}} {
		l := stringList(rule[f[0]])
		switch {
		case len(l) == 0:
			errs = append(errs, field.Required(p.Child(f[0]), fmt.Sprintf("resource rules must supply at least one %s", f[1])))
		case len(l) > 1 && contains(l, "*"):
			errs = append(errs, field.Invalid(p.Child(f[0]), l, fmt.Sprintf("if '*' is present, must not specify other %ss", f[1])))
		}
	}
	ns := stringList(rule["namespaces"])
	np := p.Child("namespaces")
	cluster, _ := boolean(rule, "clusterScope")
	switch {
	case len(ns) == 0 && !cluster:
		errs = append(errs, field.Required(np, "resource rules that are not cluster scoped must supply at least one namespace"))
	case contains(ns, "*"):
		if len(ns) > 1 {
			errs = append(errs, field.Invalid(np, ns, "if '*' is present, must not specify other namespaces"))
		}
	default:
		for i, n := range ns {
			for _, m := range validation.NameIsDNSLabel(n, false) {
				errs = append(errs, field.Invalid(np.Index(i), n, "each member of this list must be '*' or a DNS-1123 label; "+m))
			}
		}
	}
	return errs
}

// The internal FlowSchemaSpec as the apiserver prints it (Go field names), and the two
// mandatory FlowSchemas' specs in that form.
type (
	distinguisherJSON struct{ Type string }
	fsSpecJSON        struct {
		PriorityLevelConfiguration struct{ Name string }
		MatchingPrecedence         int64
		DistinguisherMethod        *distinguisherJSON
		Rules                      []fsRuleJSON
	}
	fsRuleJSON struct {
		Subjects         []fsSubjectJSON
		ResourceRules    []fsResourceRuleJSON
		NonResourceRules []fsNonResourceRuleJSON
	}
	fsSubjectJSON struct {
		Kind           string
		User           *struct{ Name string }
		Group          *struct{ Name string }
		ServiceAccount *struct{ Namespace, Name string }
	}
	fsResourceRuleJSON struct {
		Verbs, APIGroups, Resources []string
		ClusterScope                bool
		Namespaces                  []string
	}
	fsNonResourceRuleJSON struct{ Verbs, NonResourceURLs []string }
)

func mandatoryFlowSchema(pl string, prec int64, dm string, groups ...string) fsSpecJSON {
	s := fsSpecJSON{MatchingPrecedence: prec}
	s.PriorityLevelConfiguration.Name = pl
	if dm != "" {
		s.DistinguisherMethod = &distinguisherJSON{dm}
	}
	r := fsRuleJSON{
		ResourceRules:    []fsResourceRuleJSON{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"}}},
		NonResourceRules: []fsNonResourceRuleJSON{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
	}
	for _, g := range groups {
		r.Subjects = append(r.Subjects, fsSubjectJSON{Kind: "Group", Group: &struct{ Name string }{g}})
	}
	s.Rules = []fsRuleJSON{r}
	return s
}

var mandatoryFlowSchemas = map[string]fsSpecJSON{
	"exempt":    mandatoryFlowSchema("exempt", 1, "", "system:masters"),
	"catch-all": mandatoryFlowSchema("catch-all", 10000, "ByUser", "system:unauthenticated", "system:authenticated"),
}

// flowSchemaSpecValue reads a spec into its internal form; lists absent stay nil, lists present
// (even empty) are kept as they are, as the conversion keeps them.
func flowSchemaSpecValue(spec map[string]any) fsSpecJSON {
	s := fsSpecJSON{}
	s.PriorityLevelConfiguration.Name = str(mapOf(spec["priorityLevelConfiguration"]), "name")
	s.MatchingPrecedence, _ = integer(spec, "matchingPrecedence")
	if dm, ok := spec["distinguisherMethod"].(map[string]any); ok {
		s.DistinguisherMethod = &distinguisherJSON{str(dm, "type")}
	}
	rules, ok := spec["rules"].([]any)
	if ok {
		s.Rules = make([]fsRuleJSON, 0, len(rules))
	}
	for _, raw := range rules {
		rm := mapOf(raw)
		var r fsRuleJSON
		if l, ok := rm["subjects"].([]any); ok {
			r.Subjects = make([]fsSubjectJSON, 0, len(l))
			for _, x := range l {
				sm := mapOf(x)
				sub := fsSubjectJSON{Kind: str(sm, "kind")}
				if u, ok := sm["user"].(map[string]any); ok {
					sub.User = &struct{ Name string }{str(u, "name")}
				}
				if g, ok := sm["group"].(map[string]any); ok {
					sub.Group = &struct{ Name string }{str(g, "name")}
				}
				if sa, ok := sm["serviceAccount"].(map[string]any); ok {
					sub.ServiceAccount = &struct{ Namespace, Name string }{str(sa, "namespace"), str(sa, "name")}
				}
				r.Subjects = append(r.Subjects, sub)
			}
		}
		if l, ok := rm["resourceRules"].([]any); ok {
			r.ResourceRules = make([]fsResourceRuleJSON, 0, len(l))
			for _, x := range l {
				xm := mapOf(x)
				cs, _ := boolean(xm, "clusterScope")
				r.ResourceRules = append(r.ResourceRules, fsResourceRuleJSON{Verbs: listOrNil(xm["verbs"]), APIGroups: listOrNil(xm["apiGroups"]),
					Resources: listOrNil(xm["resources"]), ClusterScope: cs, Namespaces: listOrNil(xm["namespaces"])})
			}
		}
		if l, ok := rm["nonResourceRules"].([]any); ok {
			r.NonResourceRules = make([]fsNonResourceRuleJSON, 0, len(l))
			for _, x := range l {
				xm := mapOf(x)
				r.NonResourceRules = append(r.NonResourceRules, fsNonResourceRuleJSON{Verbs: listOrNil(xm["verbs"]), NonResourceURLs: listOrNil(xm["nonResourceURLs"])})
			}
		}
		s.Rules = append(s.Rules, r)
	}
	return s
}

// listOrNil is a list of strings, nil when absent (a present empty list stays empty).
func listOrNil(v any) []string {
	if l, ok := v.([]any); ok {
		return stringList(l)
	}
	return nil
}

// normalizeFlowSchemaSpec makes empty lists nil, as apimachinery's semantic equality holds them
// equal (the mandatory specs have no empty lists).
func normalizeFlowSchemaSpec(s fsSpecJSON) fsSpecJSON {
	out := s
	if len(s.Rules) == 0 {
		out.Rules = nil
		return out
	}
	out.Rules = make([]fsRuleJSON, len(s.Rules))
	for i, r := range s.Rules {
		nr := fsRuleJSON{}
		if len(r.Subjects) > 0 {
			nr.Subjects = r.Subjects
		}
		for _, x := range r.ResourceRules {
			nr.ResourceRules = append(nr.ResourceRules, fsResourceRuleJSON{Verbs: nilIfEmpty(x.Verbs), APIGroups: nilIfEmpty(x.APIGroups),
				Resources: nilIfEmpty(x.Resources), ClusterScope: x.ClusterScope, Namespaces: nilIfEmpty(x.Namespaces)})
		}
		for _, x := range r.NonResourceRules {
			nr.NonResourceRules = append(nr.NonResourceRules, fsNonResourceRuleJSON{Verbs: nilIfEmpty(x.Verbs), NonResourceURLs: nilIfEmpty(x.NonResourceURLs)})
		}
		out.Rules[i] = nr
	}
	return out
}

// PriorityLevelConfiguration.

const preserveZeroSharesAnnotation = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"

func validatePriorityLevelConfiguration(obj map[string]any, _ Options) field.ErrorList {
	return priorityLevel(obj, nil)
}

func validatePriorityLevelConfigurationUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	switch opts.Subresource {
	case "status":
		return distinct(flowcontrolConditions(listOf(mapOf(obj["status"])["conditions"])))
	case "":
		return priorityLevel(obj, old)
	}
	return nil
}

// covered is a hand-written error the declarative validation may replace: it goes when an
// enforced declarative error of its type and field is listed (rest's
// FilterCoveredHandwrittenErrors).
type covered struct {
	err     *field.Error
	covered bool
}

// priorityLevel is ValidatePriorityLevelConfiguration and the declarative rules (old nil on
// create).
func priorityLevel(obj, old map[string]any) field.ErrorList {
	var hand []covered
	add := func(errs field.ErrorList, isCovered bool) {
		for _, e := range errs {
			hand = append(hand, covered{e, isCovered})
		}
	}
	add(coreObjectMeta(obj, false, validation.NameIsDNSSubdomain), false)
	md := mapOf(obj["metadata"])
	if _, ok := mapOf(md["annotations"])[preserveZeroSharesAnnotation]; ok {
		add(field.ErrorList{field.Forbidden(field.NewPath("metadata", "annotations"), fmt.Sprintf("annotation '%s' is forbidden", preserveZeroSharesAnnotation))}, false)
	}
	name := str(md, "name")
	spec := mapOf(obj["spec"])
	p := field.NewPath("spec")
	typ := str(spec, "type")
	if (name == "exempt") != (typ == "Exempt") {
		add(field.ErrorList{field.Invalid(p.Child("type"), typ, "must be 'Exempt' if and only if `name` is 'exempt'")}, false)
	}
	limited, hasLimited := spec["limited"].(map[string]any)
	exempt, hasExempt := spec["exempt"].(map[string]any)
	switch typ {
	case "Exempt":
		if hasLimited {
			add(field.ErrorList{field.Forbidden(p.Child("limited"), "must be nil if the type is not Limited")}, true)
		}
		if hasExempt {
			ep := p.Child("exempt")
			if n, ok := integer(exempt, "nominalConcurrencyShares"); ok && exempt["nominalConcurrencyShares"] != nil && n < 0 {
				add(field.ErrorList{field.Invalid(ep.Child("nominalConcurrencyShares"), n, "must be a non-negative integer")}, false)
			}
			add(lendablePercent(ep, exempt), false)
		}
	case "Limited":
		if hasExempt {
			add(field.ErrorList{field.Forbidden(p.Child("exempt"), "must be nil if the type is Limited")}, true)
		}
		if !hasLimited {
			add(field.ErrorList{field.Required(p.Child("limited"), "must not be empty when type is Limited")}, true)
		} else {
			limitedPriorityLevel(p.Child("limited"), limited, add)
		}
	case "":
		add(field.ErrorList{field.Required(p.Child("type"), "")}, true)
	default:
		add(field.ErrorList{field.NotSupported(p.Child("type"), typ, []string{"Exempt", "Limited"})}, false)
	}
	if msg, bad := mandatoryPriorityLevel(name, spec); bad {
		add(field.ErrorList{field.Invalid(p, priorityLevelSpecValue(spec), msg)}, false)
	}
	add(flowcontrolConditions(listOf(mapOf(obj["status"])["conditions"])), false)

	decl := priorityLevelDeclarative(spec, old)
	var out field.ErrorList
	for _, h := range hand {
		if h.covered && matchesAny(h.err, decl) {
			continue
		}
		out = append(out, h.err)
	}
	return withDeclarative(out, decl)
}

func matchesAny(e *field.Error, decl field.ErrorList) bool {
	for _, d := range decl {
		if d.Type == e.Type && d.Field == e.Field {
			return true
		}
	}
	return false
}

func limitedPriorityLevel(p field.Path, l map[string]any, add func(field.ErrorList, bool)) {
	if n, _ := integer(l, "nominalConcurrencyShares"); n < 0 {
		add(field.ErrorList{field.Invalid(p.Child("nominalConcurrencyShares"), n, "must be a non-negative integer")}, false)
	}
	lr := mapOf(l["limitResponse"])
	lp := p.Child("limitResponse")
	q, hasQ := lr["queuing"].(map[string]any)
	switch t := str(lr, "type"); t {
	case "Reject":
		if hasQ {
			add(field.ErrorList{field.Forbidden(lp.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited")}, true)
		}
	case "Queue":
		if !hasQ {
			add(field.ErrorList{field.Required(lp.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited")}, true)
		} else {
			add(queuingConfiguration(lp.Child("queuing"), q), false)
		}
	case "":
		add(field.ErrorList{field.Required(lp.Child("type"), "")}, true)
	default:
		add(field.ErrorList{field.NotSupported(lp.Child("type"), t, []string{"Queue", "Reject"})}, false)
	}
	add(lendablePercent(p, l), false)
	if b, ok := integer(l, "borrowingLimitPercent"); ok && l["borrowingLimitPercent"] != nil && b < 0 {
		add(field.ErrorList{field.Invalid(p.Child("borrowingLimitPercent"), b, "if specified, must be a non-negative integer")}, false)
	}
}

func lendablePercent(p field.Path, m map[string]any) field.ErrorList {
	if v, ok := integer(m, "lendablePercent"); ok && m["lendablePercent"] != nil && (v < 0 || v > 100) {
		return field.ErrorList{field.Invalid(p.Child("lendablePercent"), v, "must be between 0 and 100, inclusive")}
	}
	return nil
}

func queuingConfiguration(p field.Path, q map[string]any) field.ErrorList {
	var errs field.ErrorList
	qll, _ := integer(q, "queueLengthLimit")
	queues, _ := integer(q, "queues")
	hand, _ := integer(q, "handSize")
	if qll <= 0 {
		errs = append(errs, field.Invalid(p.Child("queueLengthLimit"), qll, "must be positive"))
	}
	if queues <= 0 {
		errs = append(errs, field.Invalid(p.Child("queues"), queues, "must be positive"))
	} else if queues > 10_000_000 {
		errs = append(errs, field.Invalid(p.Child("queues"), queues, "must not be greater than 10000000"))
	}
	switch {
	case hand <= 0:
		errs = append(errs, field.Invalid(p.Child("handSize"), hand, "must be positive"))
	case hand > queues:
		errs = append(errs, field.Invalid(p.Child("handSize"), hand, fmt.Sprintf("should not be greater than queues (%d)", queues)))
	case int(math.Ceil(math.Log2(float64(queues))*float64(hand))) > 60:
		errs = append(errs, field.Invalid(p.Child("handSize"), hand, fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than 60", queues, hand)))
	}
	return errs
}

// priorityLevelDeclarative is the spec's declarative rules, each skipped on an update that does
// not change what it reads (the ratcheting of declarative validation): the union members
// forbidden but for the one the type names (limited required for Limited), the type required;
// in limited's limit response, queuing forbidden but for Queue (where it is required) and the
// type required.
func priorityLevelDeclarative(spec, old map[string]any) field.ErrorList {
	update := old != nil
	oldSpec := mapOf(old["spec"])
	if update && semanticEqual(spec, oldSpec) {
		return nil
	}
	var errs field.ErrorList
	p := field.NewPath("spec")
	typ, oldTyp := str(spec, "type"), str(oldSpec, "type")
	member := func(key string) (map[string]any, bool, bool) {
		v, ok := spec[key].(map[string]any)
		ov, oldOK := oldSpec[key].(map[string]any)
		same := update && typ == oldTyp && ok == oldOK && semanticEqual(v, ov)
		return v, ok, same
	}
	if _, ok, same := member("exempt"); !same && typ != "Exempt" && ok {
		errs = append(errs, field.Forbidden(p.Child("exempt"), ""))
	}
	limited, hasLimited, same := member("limited")
	if !same {
		if typ == "Limited" && !hasLimited {
			errs = append(errs, field.Required(p.Child("limited"), ""))
		} else if typ != "Limited" && hasLimited {
			errs = append(errs, field.Forbidden(p.Child("limited"), ""))
		}
	}
	if typ == "" && (!update || typ != oldTyp) {
		errs = append(errs, field.Required(p.Child("type"), ""))
	}
	oldLimited, oldHasLimited := oldSpec["limited"].(map[string]any)
	if !hasLimited || (update && oldHasLimited && semanticEqual(limited, oldLimited)) {
		return errs
	}
	lr := mapOf(limited["limitResponse"])
	oldLR := mapOf(oldLimited["limitResponse"])
	lrUpdate := update && oldHasLimited
	if lrUpdate && semanticEqual(lr, oldLR) {
		return errs
	}
	lp := p.Child("limited", "limitResponse")
	lt := str(lr, "type")
	_, hasQ := lr["queuing"].(map[string]any)
	_, oldHasQ := oldLR["queuing"].(map[string]any)
	// The queuing members are compared as pointers: only two absent ones are the same.
	if !(lrUpdate && lt == str(oldLR, "type") && !hasQ && !oldHasQ) {
		if lt == "Queue" && !hasQ {
			errs = append(errs, field.Required(lp.Child("queuing"), ""))
		} else if lt != "Queue" && hasQ {
			errs = append(errs, field.Forbidden(lp.Child("queuing"), ""))
		}
	}
	if lt == "" && (!lrUpdate || lt != str(oldLR, "type")) {
		errs = append(errs, field.Required(lp.Child("type"), ""))
	}
	return errs
}

// The internal PriorityLevelConfigurationSpec as the apiserver prints it.
type (
	plSpecJSON struct {
		Type    string
		Limited *plLimitedJSON
		Exempt  *plExemptJSON
	}
	plLimitedJSON struct {
		NominalConcurrencyShares int64
		LimitResponse            struct {
			Type    string
			Queuing *struct{ Queues, HandSize, QueueLengthLimit int64 }
		}
		LendablePercent       *int64
		BorrowingLimitPercent *int64
	}
	plExemptJSON struct{ NominalConcurrencyShares, LendablePercent *int64 }
)

func optionalInt(m map[string]any, key string) *int64 {
	if v, ok := integer(m, key); ok && m[key] != nil {
		return &v
	}
	return nil
}

func priorityLevelSpecValue(spec map[string]any) plSpecJSON {
	s := plSpecJSON{Type: str(spec, "type")}
	if l, ok := spec["limited"].(map[string]any); ok {
		s.Limited = &plLimitedJSON{LendablePercent: optionalInt(l, "lendablePercent"), BorrowingLimitPercent: optionalInt(l, "borrowingLimitPercent")}
		s.Limited.NominalConcurrencyShares, _ = integer(l, "nominalConcurrencyShares")
		lr := mapOf(l["limitResponse"])
		s.Limited.LimitResponse.Type = str(lr, "type")
		if q, ok := lr["queuing"].(map[string]any); ok {
			s.Limited.LimitResponse.Queuing = &struct{ Queues, HandSize, QueueLengthLimit int64 }{}
			s.Limited.LimitResponse.Queuing.Queues, _ = integer(q, "queues")
			s.Limited.LimitResponse.Queuing.HandSize, _ = integer(q, "handSize")
			s.Limited.LimitResponse.Queuing.QueueLengthLimit, _ = integer(q, "queueLengthLimit")
		}
	}
	if e, ok := spec["exempt"].(map[string]any); ok {
		s.Exempt = &plExemptJSON{optionalInt(e, "nominalConcurrencyShares"), optionalInt(e, "lendablePercent")}
	}
	return s
}

// mandatoryPriorityLevel is ValidateIfMandatoryPriorityLevelConfigurationObject: "exempt" must
// be of type Exempt without limited (its exempt is free), "catch-all" exactly the fixed spec.
func mandatoryPriorityLevel(name string, spec map[string]any) (string, bool) {
	switch name {
	case "exempt":
		have := priorityLevelSpecValue(spec)
		if have.Type != "Exempt" || have.Limited != nil {
			return "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value", true
		}
	case "catch-all":
		zero, five := int64(0), int64(5)
		want := plSpecJSON{Type: "Limited", Limited: &plLimitedJSON{NominalConcurrencyShares: five, LendablePercent: &zero}}
		want.Limited.LimitResponse.Type = "Reject"
		if !reflect.DeepEqual(priorityLevelSpecValue(spec), want) {
			return "spec of 'catch-all' must equal the fixed value", true
		}
	}
	return "", false
}
