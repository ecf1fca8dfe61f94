package validation

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// resource.k8s.io/v1 (dynamic resource allocation) as pkg/apis/resource/validation and the
// strategies of pkg/registry/resource validate it, with 1.37's enforced (beta) declarative rules:
// the hand-written errors the declarative ones cover are dropped, the declarative ones follow
// every hand-written error (withDeclarative). Device selectors are CEL, compiled by
// Options.Expressions (ExpressionCompiler.DeviceSelector, the DRA environment); an unchanged
// list of selectors is "stored" and not compiled again.

// Limits of resource.k8s.io (k8s.io/kubernetes/pkg/apis/resource).
const (
	deviceSelectorsMaxSize         = 32
	deviceConfigMaxSize            = 32
	celSelectorExpressionMaxLength = 10 * 1024
	celSelectorExpressionMaxCost   = 1000000
	opaqueParametersMaxLength      = 10 * 1024
	driverNameMaxLength            = 63
)

// deviceSelectors is validateSelectorSlice's items (the size is checked by the caller): each
// selector's CEL expression.
func deviceSelectors(p field.Path, sels []any, stored bool, opts Options) field.ErrorList {
	var errs field.ErrorList
	for i, s := range sels {
		ip := p.Index(i)
		c, ok := mapOf(s)["cel"].(map[string]any)
		if !ok {
			errs = append(errs, field.Required(ip.Child("cel"), ""))
			continue
		}
		errs = append(errs, celDeviceSelector(ip.Child("cel", "expression"), str(c, "expression"), stored, opts)...)
	}
	return errs
}

// celDeviceSelector is validateCELExpression for a selector: a stored expression is not
// compiled again; a new one is at most 10Ki long, compiles and costs at most 1,000,000.
func celDeviceSelector(p field.Path, expr string, stored bool, opts Options) field.ErrorList {
	if stored {
		return nil
	}
	if len(expr) > celSelectorExpressionMaxLength {
		return field.ErrorList{field.TooLong(p, "", celSelectorExpressionMaxLength)}
	}
	if opts.Expressions == nil {
		return nil
	}
	r := opts.Expressions.DeviceSelector(expr)
	switch {
	case r.Err != "" && r.Internal:
		return field.ErrorList{field.InternalError(p, errors.New(r.Err))}
	case r.Err != "":
		return field.ErrorList{field.Invalid(p, expr, r.Err)}
	case r.MaxCost > celSelectorExpressionMaxCost:
		return field.ErrorList{field.Forbidden(p, "too complex, exceeds cost limit")}
	}
	return nil
}

// rawExtensionObject is validateRawExtension: set, at most maxLen bytes when new, a JSON object.
func rawExtensionObject(p field.Path, v any, present, stored bool, maxLen int) field.ErrorList {
	if !present || v == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	if !stored {
		if raw, err := json.Marshal(v); err == nil && len(raw) > maxLen {
			return field.ErrorList{field.TooLong(p, "", maxLen)}
		}
	}
	if _, ok := v.(map[string]any); !ok {
		return field.ErrorList{field.Invalid(p, "<value omitted>", "must be a valid JSON object")}
	}
	return nil
}

// longNameDeclarative is validate.LongName after OptionalValue: a non-empty value must be a DNS
// subdomain (content's words: lengths in bytes).
func longNameDeclarative(p field.Path, v string) field.ErrorList {
	if v == "" {
		return nil
	}
	return invalids(p, v, validation.DNS1123Subdomain(v, validation.ContentMaxLenError))
}

// maxItemsDeclarative is validate.MaxItems.
func maxItemsDeclarative(p field.Path, l []any, max int) field.ErrorList {
	if len(l) > max {
		return field.ErrorList{field.TooMany(p, len(l), max)}
	}
	return nil
}

// maxLengthDeclarative is validate.MaxLength: at most max characters.
func maxLengthDeclarative(p field.Path, v string, max int) field.ErrorList {
	if len(v) > max && utf8.RuneCountInString(v) > max {
		return field.ErrorList{field.TooLongCharacters(p, v, max)}
	}
	return nil
}

// extendedResourceNameDeclarative is validate.ExtendedResourceName.
func extendedResourceNameDeclarative(p field.Path, v string) field.ErrorList {
	var errs field.ErrorList
	if !strings.Contains(v, "/") {
		errs = append(errs, field.Invalid(p, v, "a name must be a domain-prefixed path, such as 'example.com/my-prop'"))
	} else if strings.Contains(v, "kubernetes.io/") {
		errs = append(errs, field.Invalid(p, v, fmt.Sprintf("must not have %q domain", "kubernetes.io/")))
	}
	if strings.HasPrefix(v, "requests.") {
		errs = append(errs, field.Invalid(p, v, fmt.Sprintf("must not have %q prefix", "requests.")))
	}
	return append(errs, invalids(p, v, validation.IsQualifiedName("requests."+v))...)
}
