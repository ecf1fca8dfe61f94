package managedfields

import (
	"fmt"
	"unicode"

	"github.com/writepath/writepath/field"
)

// MaxFieldManagerLength is the longest field manager name the apiserver accepts.
const MaxFieldManagerLength = 128

// MaxSubresourceNameLength is the longest subresource name a managedFields entry may carry.
const MaxSubresourceNameLength = 256

// Validate checks entries the way the apiserver validates metadata.managedFields on writes
// (ValidateManagedFields): operation required and Apply or Update, fieldsType FieldsV1 when set,
// manager at most 128 printable characters, subresource at most 256 bytes. fldPath is where the
// list sits, normally metadata.managedFields.
func Validate(entries []Entry, fldPath field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range entries {
		p := fldPath.Index(i)
		switch e.Operation {
		case "":
			errs = append(errs, field.Required(p.Child("operation"), "must not be empty"))
		case OperationApply, OperationUpdate:
		default:
			errs = append(errs, field.NotSupported(p.Child("operation"), e.Operation, []Operation{OperationApply, OperationUpdate}))
		}
		if e.FieldsType != "" && e.FieldsType != FieldsTypeV1 {
			errs = append(errs, field.Invalid(p.Child("fieldsType"), e.FieldsType, "must be `FieldsV1`"))
		}
		errs = append(errs, ValidateManager(e.Manager, p.Child("manager"))...)
		if len(e.Subresource) > MaxSubresourceNameLength {
			errs = append(errs, field.TooLong(p.Child("subresource"), "", MaxSubresourceNameLength))
		}
	}
	return errs
}

// ValidateManager checks a field manager name as ValidateFieldManager does: at most 128 bytes,
// printable characters only.
func ValidateManager(manager string, fldPath field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(manager) > MaxFieldManagerLength {
		errs = append(errs, field.TooLong(fldPath, "", MaxFieldManagerLength))
	}
	for i, r := range manager {
		if !unicode.IsPrint(r) {
			errs = append(errs, field.Invalid(fldPath, manager, fmt.Sprintf("invalid character %#U (at position %d)", r, i)))
		}
	}
	return errs
}
