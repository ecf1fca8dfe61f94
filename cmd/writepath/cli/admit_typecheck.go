package cli

import (
	"github.com/writepath/writepath/controllers/policystatus"
	"github.com/writepath/writepath/schema"
)

// runTypeCheck is admit --type-check: the status.typeChecking of every
// ValidatingAdmissionPolicy in the policy files.
func runTypeCheck(e *env, o output, rest []string, policies, crdFiles []string) int {
	if len(rest) > 0 {
		return e.fail(usagef("unexpected argument %q", rest[0]))
	}
	if len(policies) == 0 {
		return e.fail(usagef("--type-check needs --policy FILE"))
	}
	var crds []*schema.CRD
	if len(crdFiles) > 0 {
		docs, err := e.readObjects(crdFiles)
		if err != nil {
			return e.fail(err)
		}
		for _, d := range docs {
			crd, err := schema.FromCRD(d)
			if err != nil {
				return e.fail(&inputError{err: err})
			}
			crds = append(crds, crd)
		}
	}
	docs, err := e.readObjects(policies)
	if err != nil {
		return e.fail(err)
	}
	var out []any
	warned := false
	for _, d := range docs {
		if d["apiVersion"] != "admissionregistration.k8s.io/v1" || d["kind"] != "ValidatingAdmissionPolicy" {
			continue
		}
		ws, err := policystatus.TypeCheck(d, policystatus.Options{CRDs: crds})
		if err != nil {
			return e.fail(&inputError{err: err})
		}
		name, _ := d["metadata"].(map[string]any)["name"].(string)
		tc := map[string]any{}
		if len(ws) > 0 {
			warned = true
			list := make([]any, len(ws))
			for i, w := range ws {
				list[i] = map[string]any{"fieldRef": w.FieldRef, "warning": w.Warning}
			}
			tc["expressionWarnings"] = list
		}
		out = append(out, map[string]any{"name": name, "typeChecking": tc})
	}
	if err := e.printValue(o, out); err != nil {
		return e.fail(err)
	}
	if warned {
		return exitNegative
	}
	return exitOK
}
