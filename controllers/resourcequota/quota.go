package resourcequota

func statusOf(q map[string]any) map[string]any {
	s, _ := q["status"].(map[string]any)
	return s
}

func specOf(q map[string]any) map[string]any {
	s, _ := q["spec"].(map[string]any)
	return s
}

func quotaName(q map[string]any) string {
	m, _ := q["metadata"].(map[string]any)
	s, _ := m["name"].(string)
	return s
}

// quotaScopes is getScopeSelectorsFromQuota: spec.scopes as Exists selectors, then
// spec.scopeSelector.matchExpressions.
func quotaScopes(q map[string]any) []ScopeSelector {
	spec := specOf(q)
	var out []ScopeSelector
	scopes, _ := spec["scopes"].([]any)
	for _, x := range scopes {
		s, _ := x.(string)
		out = append(out, ScopeSelector{ScopeName: s, Operator: "Exists"})
	}
	sel, _ := spec["scopeSelector"].(map[string]any)
	exprs, _ := sel["matchExpressions"].([]any)
	for _, x := range exprs {
		m, _ := x.(map[string]any)
		s := ScopeSelector{}
		s.ScopeName, _ = m["scopeName"].(string)
		s.Operator, _ = m["operator"].(string)
		vals, _ := m["values"].([]any)
		for _, v := range vals {
			if str, ok := v.(string); ok {
				s.Values = append(s.Values, str)
			}
		}
		out = append(out, s)
	}
	return out
}
