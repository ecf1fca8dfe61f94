// Package validation holds the string validators of apimachinery's util/validation (DNS names,
// label keys and values, path segments), with their exact messages. Every package that checks
// names — schema's CRD and object-metadata rules, admission's built-in steps, conversion's
// metadata checks, CEL's format library — calls these, so a wording fix lands everywhere at once.
//
// # Usage
//
//	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
//		errs = append(errs, field.Invalid(path, name, strings.Join(msgs, ", ")))
//	}
//	rule := validation.NameIsDNSSubdomain // a kind's metadata.name rule (prefix: generateName)
//
// # Invariants
//
// Pure functions over strings; safe for concurrent use. A nil result means valid; otherwise each
// string is one message, in apimachinery's order.
//
// # Errors
//
// There are none beyond the messages: a validator returns apimachinery's words ("a lowercase RFC
// 1123 subdomain must consist of ...", "must be no more than 253 characters") for the caller to
// wrap into a field.Error at its path.
package validation
