package validation

import (
	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// ValidatePodBinding is core's ValidatePodBinding, which pods/binding's REST Create runs before
// anything else: the target's kind Node or empty, its name required and, for a Node, a DNS
// subdomain. The apiserver answers these errors aggregated as a plain 500 (BindingREST returns
// errs.ToAggregate(), not a StatusError). binding is not modified.
func ValidatePodBinding(binding map[string]any) field.ErrorList {
	var errs field.ErrorList
	target := mapOf(binding["target"])
	kind, name := str(target, "kind"), str(target, "name")
	if kind != "" && kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), kind, []string{"Node", "<empty>"}))
	}
	switch {
	case name == "":
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	case kind == "" || kind == "Node":
		errs = append(errs, invalids(field.NewPath("target", "name"), name, ivalidation.NameIsDNSSubdomain(name, false))...)
	}
	return errs
}
