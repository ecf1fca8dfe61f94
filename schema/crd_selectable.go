package schema

import "github.com/writepath/writepath/field"

// maxSelectableFields is apiextensions' MaxSelectableFields.
const maxSelectableFields = 8

// validateSelectableFields is apiextensions' ValidateCustomResourceSelectableFields for a create:
// each jsonPath must be set, resolve in the schema through properties and
// additionalProperties only (no array notation, nothing under a list), not point into metadata,
// reach a string, integer or boolean, and be unique; at most 8 distinct paths.
func validateSelectableFields(paths []string, s *Structural, fld field.Path) field.ErrorList {
	var all field.ErrorList
	unique := map[string]bool{}
	for i, jp := range paths {
		ip := fld.Index(i).Child("jsonPath")
		if jp == "" {
			all = append(all, field.Required(ip, ""))
			continue
		}
		p, found, err := ValidFieldPath(jp, s, false)
		if err != nil {
			all = append(all, field.Invalid(ip, jp, "is an invalid path: "+err.Error()))
			continue
		}
		if segs := p.Segments(); len(segs) > 0 && segs[0].Kind == field.SegmentChild && segs[0].Name == "metadata" {
			all = append(all, field.Invalid(ip, jp, "must not point to fields in metadata"))
		}
		if found == nil || found.Type != "string" && found.Type != "boolean" && found.Type != "integer" {
			all = append(all, field.Invalid(ip, jp, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		if unique[p.String()] {
			all = append(all, field.Duplicate(ip, jp))
		} else {
			unique[p.String()] = true
		}
	}
	if len(unique) > maxSelectableFields {
		all = append(all, field.TooMany(fld, len(unique), maxSelectableFields))
	}
	return all
}
