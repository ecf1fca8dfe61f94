package schema

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/status"
)

// CRD is an apiextensions.k8s.io/v1 CustomResourceDefinition read for its schemas: what the
// apiserver derives from it to serve the custom resources. A CRD is read-only once built and safe
// for concurrent use.
type CRD struct {
	// Name is metadata.name (<plural>.<group>).
	Name  string
	Group string
	Names Names
	// Scope is "Namespaced" or "Cluster".
	Scope string
	// PreserveUnknownFields is spec.preserveUnknownFields (pruning is off when true).
	PreserveUnknownFields bool
	// Versions are in the order of spec.versions.
	Versions []*Version
}

// Names are the names of a custom resource (spec.names).
type Names struct {
	Plural, Singular, Kind, ListKind string
	ShortNames, Categories           []string
}

// Version is one version of a CRD with its schema.
type Version struct {
	Name       string
	Served     bool
	Storage    bool
	Deprecated bool
	// DeprecationWarning is the custom warning text, nil for the default one.
	DeprecationWarning *string
	// Props is spec.versions[].schema.openAPIV3Schema as written (nil when absent).
	Props *Props
	// Structural is the structural schema the apiserver serves with: built from Props, with its
	// default values pruned. Nil when Props is nil.
	Structural   *Structural
	Subresources Subresources
	// SelectableFields are the JSON paths of spec.versions[].selectableFields.
	SelectableFields []string
	// PrinterColumns are spec.versions[].additionalPrinterColumns.
	PrinterColumns []PrinterColumn

	crd             *CRD
	validator       *Validator
	status          *Validator
	rawSchema       any
	rawSubresources any
	rawColumns      any

	smdOnce sync.Once
	smdType typed.ParseableType
	smdErr  error
}

// PrinterColumn is one of a version's additionalPrinterColumns.
type PrinterColumn struct {
	Name, Type, Format, Description string
	Priority                        int32
	JSONPath                        string
}

// Subresources are the subresources of a version.
type Subresources struct {
	Status bool
	Scale  *Scale
}

// Scale is the scale subresource's paths (".spec.replicas" style).
type Scale struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	LabelSelectorPath  *string
}

// GVK returns the group, version and kind of v's objects.
func (v *Version) GVK() GroupVersionKind {
	return GroupVersionKind{Group: v.crd.Group, Version: v.Name, Kind: v.crd.Names.Kind}
}

// CRD returns the definition v belongs to.
func (v *Version) CRD() *CRD { return v.crd }

// Validator returns the compiled schema validator of v.
func (v *Version) Validator() *Validator { return v.validator }

// Namespaced reports whether the custom resources are namespaced.
func (c *CRD) Namespaced() bool { return c.Scope == "Namespaced" }

// Version returns the version named name, or nil.
func (c *CRD) Version(name string) *Version {
	for _, v := range c.Versions {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// StorageVersion returns the version marked storage, or nil.
func (c *CRD) StorageVersion() *Version {
	for _, v := range c.Versions {
		if v.Storage {
			return v
		}
	}
	return nil
}

var crdGK = status.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// FromCRDBytes decodes a CustomResourceDefinition (YAML or JSON) and calls FromCRD.
func FromCRDBytes(data []byte) (*CRD, error) {
	obj, err := codec.DecodeObject(data)
	if err != nil {
		return nil, err
	}
	return FromCRD(obj)
}

// FromCRD reads an apiextensions.k8s.io/v1 CustomResourceDefinition object. A CRD that does not
// decode gives a 400 BadRequest *status.Error; one that the apiserver would reject gives a 422
// Invalid *status.Error whose causes carry apiextensions' messages and paths (structural-schema
// violations, names, versions, subresources; see the package documentation for what is checked).
// crd is not modified and the result keeps no reference into it.
func FromCRD(crd map[string]any) (*CRD, error) {
	c, errs, err := fromCRD(crd, true)
	if err == nil && len(errs) > 0 {
		err = status.Invalid(crdGK, c.Name, errs)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// FromCRDUpdate reads crd as FromCRD does for an update: the checks that refuse it are returned
// as errs (the CRD is then nil), and they leave out the create-time metadata rules, since
// ValidateCustomResourceDefinitionUpdate validates metadata with the update rules
// (ValidateObjectMetaUpdate), which the caller applies. A CRD that does not decode gives a 400
// BadRequest *status.Error.
func FromCRDUpdate(crd map[string]any) (*CRD, field.ErrorList, error) {
	c, errs, err := fromCRD(crd, false)
	if err != nil || len(errs) > 0 {
		return nil, errs, err
	}
	return c, nil, nil
}

// fromCRD decodes crd and validates it (its metadata with the create rules when meta is set):
// the CRD read, the 422's errors (the CRD is not finished then), or a 400 *status.Error.
func fromCRD(crd map[string]any, meta bool) (*CRD, field.ErrorList, error) {
	crd = value.Clone(crd).(map[string]any)
	if av, _ := crd["apiVersion"].(string); av != "apiextensions.k8s.io/v1" {
		return nil, nil, status.BadRequest(fmt.Sprintf("expected apiVersion apiextensions.k8s.io/v1, got %q", av))
	}
	if k, _ := crd["kind"].(string); k != "CustomResourceDefinition" {
		return nil, nil, status.BadRequest(fmt.Sprintf("expected kind CustomResourceDefinition, got %q", k))
	}
	c := &CRD{}
	if md, ok := crd["metadata"].(map[string]any); ok {
		c.Name, _ = md["name"].(string)
	}
	spec, _ := crd["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
	}
	d := decoder{}
	c.Group = d.str(spec, "group", "spec.group")
	c.Scope = d.str(spec, "scope", "spec.scope")
	c.PreserveUnknownFields = d.boolean(spec, "preserveUnknownFields", "spec.preserveUnknownFields")
	if names, ok := spec["names"].(map[string]any); ok {
		c.Names = Names{
			Plural: d.str(names, "plural", "spec.names.plural"), Singular: d.str(names, "singular", "spec.names.singular"),
			Kind: d.str(names, "kind", "spec.names.kind"), ListKind: d.str(names, "listKind", "spec.names.listKind"),
			ShortNames: d.strs(names, "shortNames", "spec.names.shortNames"), Categories: d.strs(names, "categories", "spec.names.categories"),
		}
	}
	// v1 defaulting (SetDefaults_CustomResourceDefinitionSpec).
	if c.Names.Singular == "" {
		c.Names.Singular = strings.ToLower(c.Names.Kind)
	}
	if c.Names.ListKind == "" && c.Names.Kind != "" {
		c.Names.ListKind = c.Names.Kind + "List"
	}
	vs, _ := spec["versions"].([]any)
	for i, x := range vs {
		vm, ok := x.(map[string]any)
		if !ok {
			d.fail(fmt.Sprintf("spec.versions[%d]", i), "expected object")
			continue
		}
		pth := fmt.Sprintf("spec.versions[%d]", i)
		v := &Version{crd: c,
			Name: d.str(vm, "name", pth+".name"), Served: d.boolean(vm, "served", pth+".served"),
			Storage: d.boolean(vm, "storage", pth+".storage"), Deprecated: d.boolean(vm, "deprecated", pth+".deprecated"),
		}
		if w, ok := vm["deprecationWarning"].(string); ok {
			v.DeprecationWarning = &w
		}
		v.rawSchema, v.rawSubresources = vm["schema"], vm["subresources"]
		if sc, ok := vm["schema"].(map[string]any); ok {
			if oas, ok := sc["openAPIV3Schema"]; ok && oas != nil {
				p, err := ParseProps(oas, pth+".schema.openAPIV3Schema")
				if err != nil {
					d.err = append(d.err, err.Error())
				} else {
					v.Props = p
				}
			}
		}
		if sr, ok := vm["subresources"].(map[string]any); ok {
			if _, ok := sr["status"]; ok && sr["status"] != nil {
				v.Subresources.Status = true
			}
			if sc, ok := sr["scale"].(map[string]any); ok {
				v.Subresources.Scale = &Scale{
					SpecReplicasPath:   d.str(sc, "specReplicasPath", pth+".subresources.scale.specReplicasPath"),
					StatusReplicasPath: d.str(sc, "statusReplicasPath", pth+".subresources.scale.statusReplicasPath"),
				}
				if l, ok := sc["labelSelectorPath"].(string); ok {
					v.Subresources.Scale.LabelSelectorPath = &l
				}
			}
		}
		v.rawColumns = vm["additionalPrinterColumns"]
		if cols, ok := vm["additionalPrinterColumns"].([]any); ok {
			for i, x := range cols {
				m, _ := x.(map[string]any)
				cp := fmt.Sprintf("%s.additionalPrinterColumns[%d]", pth, i)
				col := PrinterColumn{Name: d.str(m, "name", cp+".name"), Type: d.str(m, "type", cp+".type"), Format: d.str(m, "format", cp+".format"),
					Description: d.str(m, "description", cp+".description"), JSONPath: d.str(m, "jsonPath", cp+".jsonPath")}
				if pr, ok := m["priority"].(int64); ok {
					col.Priority = int32(pr)
				}
				v.PrinterColumns = append(v.PrinterColumns, col)
			}
		}
		switch sfs := vm["selectableFields"].(type) {
		case nil:
		case []any:
			for j, sf := range sfs {
				// A null element decodes as an empty selectable field (jsonPath "").
				m, ok := sf.(map[string]any)
				if !ok && sf != nil {
					d.fail(fmt.Sprintf("%s.selectableFields[%d]", pth, j), "cannot unmarshal "+codec.JSONKind(sf)+" into SelectableField")
					continue
				}
				v.SelectableFields = append(v.SelectableFields, d.str(m, "jsonPath", fmt.Sprintf("%s.selectableFields[%d].jsonPath", pth, j)))
			}
		default:
			d.fail(pth+".selectableFields", "cannot unmarshal "+codec.JSONKind(sfs)+" into []SelectableField")
		}
		c.Versions = append(c.Versions, v)
	}
	if len(d.err) > 0 {
		return nil, nil, status.BadRequest(strings.Join(d.err, "; "))
	}
	if errs := validateCRD(c, crd["metadata"], meta); len(errs) > 0 {
		return c, errs, nil
	}
	for _, v := range c.Versions {
		if v.Props == nil {
			continue
		}
		s, err := NewStructural(v.Props)
		if err != nil {
			return nil, nil, status.InternalError(fmt.Errorf("the server could not properly serve the CR schema"))
		}
		if !c.PreserveUnknownFields {
			if s, err = PruneDefaults(s); err != nil {
				return nil, nil, status.InternalError(fmt.Errorf("the server could not properly serve the CR schema"))
			}
		}
		v.Structural = s
		v.validator = NewValidator(v.Props)
		if st, ok := v.Props.Properties["status"]; ok {
			v.status = NewValidator(st)
		}
	}
	return c, nil, nil
}

type decoder struct{ err []string }

func (d *decoder) fail(path, msg string) { d.err = append(d.err, path+": "+msg) }

func (d *decoder) str(m map[string]any, k, path string) string {
	x, ok := m[k]
	if !ok || x == nil {
		return ""
	}
	s, ok := x.(string)
	if !ok {
		d.fail(path, "cannot unmarshal "+codec.JSONKind(x)+" into string")
	}
	return s
}

func (d *decoder) boolean(m map[string]any, k, path string) bool {
	x, ok := m[k]
	if !ok || x == nil {
		return false
	}
	b, ok := x.(bool)
	if !ok {
		d.fail(path, "cannot unmarshal "+codec.JSONKind(x)+" into bool")
	}
	return b
}

func (d *decoder) strs(m map[string]any, k, path string) []string {
	x, ok := m[k]
	if !ok || x == nil {
		return nil
	}
	l, ok := x.([]any)
	if !ok {
		d.fail(path, "cannot unmarshal "+codec.JSONKind(x)+" into []string")
		return nil
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			d.fail(path, "cannot unmarshal "+codec.JSONKind(e)+" into string")
			return nil
		}
		out = append(out, s)
	}
	return out
}

// sameSchema is the apiserver's test for holding one schema for all versions: semantic equality
// of the decoded schemas; schemas that did not decode compare as written.
func sameSchema(a, b *Version) bool {
	if a.Props == nil || b.Props == nil {
		return a.Props == nil && b.Props == nil && value.EqualNilDistinct(a.rawSchema, b.rawSchema)
	}
	return SemanticEqual(a.Props, b.Props)
}

// validateCRD applies apiextensions' ValidateCustomResourceDefinition for a create, in its
// order, except the checks the package documentation lists as missing. Like the apiserver (which
// converts v1 to its internal version first), a schema or subresources stanza identical in every
// version is validated once, at spec.validation / spec.subresources.
func validateCRD(c *CRD, meta any, withMeta bool) field.ErrorList {
	var all field.ErrorList
	if withMeta {
		// An update's metadata rules (the update ones) are the caller's.
		all = validateCRDMeta(c, meta)
	}
	om, _, _ := decodeObjectMeta(meta, false, "")
	spec := field.NewPath("spec")
	if c.Group == "" {
		all = append(all, field.Required(spec.Child("group"), ""))
	} else if errs := validation.IsDNS1123Subdomain(c.Group); len(errs) > 0 {
		all = append(all, field.Invalid(spec.Child("group"), c.Group, strings.Join(errs, ",")))
	} else if len(strings.Split(c.Group, ".")) < 2 {
		all = append(all, field.Invalid(spec.Child("group"), c.Group, "should be a domain with at least one dot"))
	}
	switch c.Scope {
	case "":
		all = append(all, field.Required(spec.Child("scope"), ""))
	case "Cluster", "Namespaced":
	default:
		all = append(all, field.NotSupported(spec.Child("scope"), c.Scope, []string{"Cluster", "Namespaced"}))
	}
	schemasIdentical, subresourcesIdentical, columnsIdentical, selectableIdentical := true, true, true, true
	for _, v := range c.Versions {
		schemasIdentical = schemasIdentical && sameSchema(v, c.Versions[0])
		subresourcesIdentical = subresourcesIdentical && value.EqualNilDistinct(v.rawSubresources, c.Versions[0].rawSubresources)
		columnsIdentical = columnsIdentical && value.EqualNilDistinct(v.rawColumns, c.Versions[0].rawColumns)
		selectableIdentical = selectableIdentical && stringsEqual(v.SelectableFields, c.Versions[0].SelectableFields)
	}
	topLevelSchema := len(c.Versions) > 0 && schemasIdentical && c.Versions[0].Props != nil
	if !topLevelSchema {
		for i, v := range c.Versions {
			if v.Props == nil {
				all = append(all, field.Required(spec.Child("versions").Index(i).Child("schema").Child("openAPIV3Schema"), ""))
			}
		}
	}
	storage := 0
	seen := map[string]bool{}
	unique := true
	anyStatus := false
	for i, v := range c.Versions {
		vp := spec.Child("versions").Index(i)
		if v.Storage {
			storage++
		}
		if seen[v.Name] {
			unique = false
		}
		seen[v.Name] = true
		anyStatus = anyStatus || v.Subresources.Status
		if errs := validation.IsDNS1035Label(v.Name); len(errs) > 0 {
			all = append(all, field.Invalid(vp.Child("name"), v.Name, strings.Join(errs, ",")))
		}
		if v.DeprecationWarning != nil {
			if !v.Deprecated {
				all = append(all, field.Invalid(vp.Child("deprecationWarning"), *v.DeprecationWarning, "can only be set for deprecated versions"))
			} else {
				if len(*v.DeprecationWarning) > 256 {
					all = append(all, field.Invalid(vp.Child("deprecationWarning"), *v.DeprecationWarning, "must be <= 256 characters long"))
				}
				if *v.DeprecationWarning == "" {
					all = append(all, field.Invalid(vp.Child("deprecationWarning"), *v.DeprecationWarning, "must not be an empty string"))
				}
			}
		}
		if !schemasIdentical && v.Props != nil {
			// The apiserver looks the subresources up by version name (the first version of that
			// name, or the spec's when every version has the same).
			status := c.Versions[0].Subresources.Status
			if !subresourcesIdentical {
				for _, w := range c.Versions {
					if w.Name == v.Name {
						status = w.Subresources.Status
						break
					}
				}
			}
			all = append(all, validateVersionSchema(v.Props, status, vp.Child("schema"))...)
		}
		if !subresourcesIdentical {
			all = append(all, validateSubresources(v.Subresources, vp.Child("subresources"))...)
		}
		if !columnsIdentical {
			for j := range v.PrinterColumns {
				all = append(all, validateColumn(&v.PrinterColumns[j], vp.Child("additionalPrinterColumns").Index(j))...)
			}
		}
		if !selectableIdentical && len(v.SelectableFields) > 0 {
			// The version's schema is the internal one: nil when hoisted to spec.validation.
			if schemasIdentical || v.Props == nil {
				all = append(all, field.Invalid(vp.Child("selectableFields"), "", "may only be set when `version.schema.openAPIV3Schema` is not included"))
			} else {
				all = append(all, selectableFieldErrors(v.Props, v.SelectableFields, vp)...)
			}
		}
	}
	if !unique {
		all = append(all, field.Invalid(spec.Child("versions"), internalVersions(c, schemasIdentical, subresourcesIdentical, columnsIdentical, selectableIdentical), "must contain unique version names"))
	}
	if storage != 1 {
		all = append(all, field.Invalid(spec.Child("versions"), internalVersions(c, schemasIdentical, subresourcesIdentical, columnsIdentical, selectableIdentical), "must have exactly one version marked as storage version"))
	}
	if len(c.Versions) > 0 && c.Versions[0].Name != "" {
		if errs := validation.IsDNS1035Label(c.Versions[0].Name); len(errs) > 0 {
			all = append(all, field.Invalid(spec.Child("version"), c.Versions[0].Name, strings.Join(errs, ",")))
		}
	}
	for _, n := range []struct{ name, value string }{{"plural", c.Names.Plural}, {"singular", c.Names.Singular}, {"kind", c.Names.Kind}, {"listKind", c.Names.ListKind}} {
		if n.value == "" {
			all = append(all, field.Required(spec.Child("names", n.name), ""))
		}
	}
	all = append(all, validateNames(c.Names, spec.Child("names"))...)
	if topLevelSchema {
		all = append(all, validateVersionSchema(c.Versions[0].Props, anyStatus, spec.Child("validation"))...)
	}
	if subresourcesIdentical && len(c.Versions) > 0 {
		all = append(all, validateSubresources(c.Versions[0].Subresources, spec.Child("subresources"))...)
	}
	if columnsIdentical && len(c.Versions) > 0 {
		for j := range c.Versions[0].PrinterColumns {
			all = append(all, validateColumn(&c.Versions[0].PrinterColumns[j], spec.Child("additionalPrinterColumns").Index(j))...)
		}
	}
	if selectableIdentical && len(c.Versions) > 0 && len(c.Versions[0].SelectableFields) > 0 {
		if !schemasIdentical || c.Versions[0].rawSchema == nil {
			all = append(all, field.Invalid(spec.Child("selectableFields"), "", "may only be set when validations.schema is included"))
		} else {
			all = append(all, selectableFieldErrors(c.Versions[0].Props, c.Versions[0].SelectableFields, spec)...)
		}
	}
	// The strategy's PrepareForCreate records the first storage version as stored.
	var stored []any
	for _, v := range c.Versions {
		if v.Storage {
			stored = append(stored, v.Name)
			break
		}
	}
	sv := field.NewPath("status", "storedVersions")
	if len(stored) == 0 {
		all = append(all, field.Invalid(sv, []any(nil), "must have at least one stored version"))
	} else {
		storedLeft := map[string]bool{stored[0].(string): true}
		for _, v := range c.Versions {
			if v.Storage && !storedLeft[v.Name] {
				all = append(all, field.Invalid(sv, stored, "must have the storage version "+v.Name))
			}
			delete(storedLeft, v.Name)
		}
	}
	if om != nil {
		all = append(all, validateAPIApproval(c.Group, om.Annotations)...)
	}
	if c.PreserveUnknownFields {
		all = append(all, field.Invalid(spec.Child("preserveUnknownFields"), true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	return all
}

// selectableFieldErrors validates selectable fields against the structural form of p, as the
// apiserver does: a schema that does not convert is reported first at schema.openAPIV3Schema.
func selectableFieldErrors(p *Props, paths []string, fld field.Path) field.ErrorList {
	var all field.ErrorList
	s, err := NewStructural(p)
	if err != nil {
		all = append(all, field.Invalid(fld.Child("schema.openAPIV3Schema"), "", err.Error()))
	}
	return append(all, validateSelectableFields(paths, s, fld.Child("selectableFields"))...)
}

func stringsEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

const apiApprovedAnnotation = "api-approved.kubernetes.io"

// validateAPIApproval: CRDs in the community's protected groups (k8s.io, kubernetes.io) need the
// api-approved.kubernetes.io annotation (a URL, or a reason starting with "unapproved").
func validateAPIApproval(group string, annotations map[string]string) field.ErrorList {
	if !(group == "k8s.io" || strings.HasSuffix(group, ".k8s.io") || group == "kubernetes.io" || strings.HasSuffix(group, ".kubernetes.io")) {
		return nil
	}
	p := field.NewPath("metadata", "annotations").Key(apiApprovedAnnotation)
	a := annotations[apiApprovedAnnotation]
	u, err := url.ParseRequestURI(a)
	switch {
	case a == "":
		return field.ErrorList{field.Required(p, fmt.Sprintf("protected groups must have approval annotation %q, see https://github.com/kubernetes/enhancements/pull/1111", apiApprovedAnnotation))}
	case strings.HasPrefix(a, "unapproved"):
		return nil
	case err == nil && u != nil && u.Host != "" && u.Scheme != "":
		return nil
	}
	return field.ErrorList{field.Invalid(p, a, fmt.Sprintf("protected groups must have approval annotation %q with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111", apiApprovedAnnotation))}
}

func validateNames(n Names, fld field.Path) field.ErrorList {
	var all field.ErrorList
	if errs := validation.IsDNS1035Label(n.Plural); n.Plural != "" && len(errs) > 0 {
		all = append(all, field.Invalid(fld.Child("plural"), n.Plural, strings.Join(errs, ",")))
	}
	if n.Singular != "" {
		if errs := validation.IsDNS1035Label(n.Singular); len(errs) > 0 {
			all = append(all, field.Invalid(fld.Child("singular"), n.Singular, strings.Join(errs, ",")))
		}
	}
	if errs := validation.IsDNS1035Label(strings.ToLower(n.Kind)); n.Kind != "" && len(errs) > 0 {
		all = append(all, field.Invalid(fld.Child("kind"), n.Kind, "may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
	}
	if n.ListKind != "" {
		if errs := validation.IsDNS1035Label(strings.ToLower(n.ListKind)); len(errs) > 0 {
			all = append(all, field.Invalid(fld.Child("listKind"), n.ListKind, "may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
		}
	}
	for i, s := range n.ShortNames {
		if errs := validation.IsDNS1035Label(s); len(errs) > 0 {
			all = append(all, field.Invalid(fld.Child("shortNames").Index(i), s, strings.Join(errs, ",")))
		}
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		all = append(all, field.Invalid(fld.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	for i, s := range n.Categories {
		if errs := validation.IsDNS1035Label(s); len(errs) > 0 {
			all = append(all, field.Invalid(fld.Child("categories").Index(i), s, strings.Join(errs, ",")))
		}
	}
	return all
}

// validateVersionSchema is validateCustomResourceDefinitionValidation without CEL: the root
// rules, the structural-schema rules and default validation, then the OpenAPI schema rules.
func validateVersionSchema(p *Props, statusEnabled bool, fld field.Path) field.ErrorList {
	var all field.ErrorList
	oas := fld.Child("openAPIV3Schema")
	if statusEnabled {
		typeErr, fieldErr := rootStatusErrors(p)
		if typeErr {
			all = append(all, field.Invalid(fld.Child("openAPIV3Schema.type"), p.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`))
		} else if fieldErr {
			all = append(all, field.Invalid(fld.Child("openAPIV3Schema"), internalProps(p), fmt.Sprintf(`only %s fields are allowed at the root of the schema if the status subresource is enabled`, allowedRootFieldsText())))
		}
	}
	if p.Nullable {
		all = append(all, field.Forbidden(fld.Child("openAPIV3Schema.nullable"), "nullable cannot be true at the root"))
	}
	var initErrs field.ErrorList
	if s, err := NewStructural(p); err != nil {
		initErrs = append(initErrs, field.Invalid(oas, "", err.Error()))
	} else if errs := ValidateStructural(oas, s); len(errs) > 0 {
		all = append(all, errs...)
	} else {
		all = append(all, validateDefaults(context.Background(), oas, s)...)
	}
	validateSchemaProps(&all, p, walkFrom(oas), specValidator{allowDefaults: true}, true, 0)
	if len(all) == 0 {
		all = append(all, initErrs...)
	}
	return all
}

// specValidator carries the context of ValidateCustomResourceDefinitionOpenAPISchema's
// specStandardValidatorV3.
type specValidator struct {
	allowDefaults bool
	reason        string
	insideMeta    bool
}

var openapiV3Types = []string{"array", "boolean", "integer", "number", "object", "string"}

func (v specValidator) validate(p *Props, fld walkPath) field.ErrorList {
	var all field.ErrorList
	if p.Type != "" {
		ok := false
		for _, t := range openapiV3Types {
			ok = ok || t == p.Type
		}
		if !ok {
			all = append(all, field.NotSupported(fld.Child("type").Path(), p.Type, openapiV3Types))
		}
	}
	if p.HasDefault && p.Default != nil && !v.allowDefaults {
		d := "must not be set"
		if v.reason != "" {
			d += " " + v.reason
		}
		all = append(all, field.Forbidden(fld.Child("default").Path(), d))
	}
	if p.ID != "" {
		all = append(all, field.Forbidden(fld.Child("id").Path(), "id is not supported"))
	}
	if p.AdditionalItems != nil {
		all = append(all, field.Forbidden(fld.Child("additionalItems").Path(), "additionalItems is not supported"))
	}
	if len(p.PatternProperties) != 0 {
		all = append(all, field.Forbidden(fld.Child("patternProperties").Path(), "patternProperties is not supported"))
	}
	if len(p.Definitions) != 0 {
		all = append(all, field.Forbidden(fld.Child("definitions").Path(), "definitions is not supported"))
	}
	if p.Dependencies != nil {
		all = append(all, field.Forbidden(fld.Child("dependencies").Path(), "dependencies is not supported"))
	}
	if p.Ref != nil {
		all = append(all, field.Forbidden(fld.Child("$ref").Path(), "$ref is not supported"))
	}
	if p.Type == "null" {
		all = append(all, field.Forbidden(fld.Child("type").Path(), "type cannot be set to null, use nullable as an alternative"))
	}
	if len(p.ItemsArray) != 0 {
		all = append(all, field.Forbidden(fld.Child("items").Path(), "items must be a schema object and not an array"))
	}
	if v.insideMeta && p.XEmbeddedResource {
		all = append(all, field.Forbidden(fld.Child("x-kubernetes-embedded-resource").Path(), "must not be used inside of resource meta"))
	}
	return all
}

// validateSchemaProps is ValidateCustomResourceDefinitionOpenAPISchema without CEL and without
// the checks listed as missing in the package documentation.
func validateSchemaProps(all *field.ErrorList, p *Props, fld walkPath, ssv specValidator, isRoot bool, depth int) {
	if p == nil || depth > maxSchemaDepth {
		return
	}
	*all = append(*all, ssv.validate(p, fld)...)
	if p.UniqueItems {
		*all = append(*all, field.Forbidden(fld.Child("uniqueItems").Path(), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if p.AdditionalProperties != nil {
		if len(p.Properties) != 0 && (!p.AdditionalProperties.Allows || p.AdditionalProperties.Schema != nil) {
			*all = append(*all, field.Forbidden(fld.Child("additionalProperties").Path(), "additionalProperties and properties are mutual exclusive"))
		}
		sub := ssv
		if ssv.insideMeta {
			sub.allowDefaults, sub.reason = false, "inside additionalProperties applying to object metadata"
		}
		validateSchemaProps(all, p.AdditionalProperties.Schema, fld.Child("additionalProperties"), sub, false, depth+1)
	}
	for _, k := range p.propertyOrderOrSorted() {
		sub := ssv
		if (isRoot || p.XEmbeddedResource) && (k == "metadata" || k == "kind" || k == "apiVersion") {
			sub.insideMeta = true
			if isRoot {
				sub.allowDefaults, sub.reason = false, "in top-level "+k
			}
		}
		validateSchemaProps(all, p.Properties[k], fld.Child("properties").Key(k), sub, false, depth+1)
	}
	validateSchemaProps(all, p.Not, fld.Child("not"), ssv, false, depth+1)
	for i := range p.AllOf {
		validateSchemaProps(all, &p.AllOf[i], fld.Child("allOf").Index(i), ssv, false, depth+1)
	}
	for i := range p.OneOf {
		validateSchemaProps(all, &p.OneOf[i], fld.Child("oneOf").Index(i), ssv, false, depth+1)
	}
	for i := range p.AnyOf {
		validateSchemaProps(all, &p.AnyOf[i], fld.Child("anyOf").Index(i), ssv, false, depth+1)
	}
	for _, k := range sortedKeys(p.Definitions) {
		validateSchemaProps(all, p.Definitions[k], fld.Child("definitions").Key(k), ssv, false, depth+1)
	}
	if p.Items != nil {
		validateSchemaProps(all, p.Items, fld.Child("items"), ssv, false, depth+1)
	}
	for i := range p.ItemsArray {
		validateSchemaProps(all, &p.ItemsArray[i], fld.Child("items").Index(i), ssv, false, depth+1)
	}
	*all = append(*all, validateSchemaTypes(p, fld)...)
	return
}

// validateSchemaTypes holds the preserve-unknown-fields, map-type and list-type rules.
func validateSchemaTypes(p *Props, fld walkPath) field.ErrorList {
	var all field.ErrorList
	if p.XPreserveUnknownFields != nil && !*p.XPreserveUnknownFields {
		all = append(all, field.Invalid(fld.Child("x-kubernetes-preserve-unknown-fields").Path(), false, "must be true or undefined"))
	}
	if p.XMapType != nil && p.Type != "object" {
		if p.Type == "" {
			all = append(all, field.Required(fld.Child("type").Path(), "must be object if x-kubernetes-map-type is specified"))
		} else {
			all = append(all, field.Invalid(fld.Child("type").Path(), p.Type, "must be object if x-kubernetes-map-type is specified"))
		}
	}
	if p.XMapType != nil && *p.XMapType != "atomic" && *p.XMapType != "granular" {
		all = append(all, field.NotSupported(fld.Child("x-kubernetes-map-type").Path(), *p.XMapType, []string{"atomic", "granular"}))
	}
	if p.XListType != nil && p.Type != "array" {
		if p.Type == "" {
			all = append(all, field.Required(fld.Child("type").Path(), "must be array if x-kubernetes-list-type is specified"))
		} else {
			all = append(all, field.Invalid(fld.Child("type").Path(), p.Type, "must be array if x-kubernetes-list-type is specified"))
		}
	} else if p.XListType != nil && *p.XListType == "set" && p.Items != nil {
		is := p.Items
		switch is.Type {
		case "array":
			if is.XListType != nil && *is.XListType != "atomic" {
				all = append(all, field.Invalid(fld.Child("items").Child("x-kubernetes-list-type").Path(), *is.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		case "object":
			if is.XMapType == nil || *is.XMapType != "atomic" {
				var v any
				if is.XListType != nil {
					v = *is.XListType
				}
				all = append(all, field.Invalid(fld.Child("items").Child("x-kubernetes-map-type").Path(), v, "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		}
	}
	if p.XListType != nil && *p.XListType != "atomic" && *p.XListType != "set" && *p.XListType != "map" {
		all = append(all, field.NotSupported(fld.Child("x-kubernetes-list-type").Path(), *p.XListType, []string{"atomic", "set", "map"}))
	}
	if len(p.XListMapKeys) > 0 {
		if p.XListType == nil {
			all = append(all, field.Required(fld.Child("x-kubernetes-list-type").Path(), "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if *p.XListType != "map" {
			all = append(all, field.Invalid(fld.Child("x-kubernetes-list-type").Path(), *p.XListType, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}
	if p.XListType != nil && *p.XListType == "map" {
		if len(p.XListMapKeys) == 0 {
			all = append(all, field.Required(fld.Child("x-kubernetes-list-map-keys").Path(), "must not be empty if x-kubernetes-list-type is map"))
		}
		if p.Items == nil && p.ItemsArray == nil {
			all = append(all, field.Required(fld.Child("items").Path(), "must have a schema if x-kubernetes-list-type is map"))
		}
		if p.Items != nil && p.Items.Type != "object" {
			all = append(all, field.Invalid(fld.Child("items").Child("type").Path(), p.Items.Type, "must be object if parent array's x-kubernetes-list-type is map"))
		}
		if p.Items != nil && p.Items.Type == "object" {
			keys := map[string]bool{}
			for _, k := range p.XListMapKeys {
				if s, ok := p.Items.Properties[k]; ok {
					if s.Type == "array" || s.Type == "object" {
						all = append(all, field.Invalid(fld.Child("items").Child("properties").Key(k).Child("type").Path(), p.Items.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
					}
				} else {
					all = append(all, field.Invalid(fld.Child("x-kubernetes-list-map-keys").Path(), listValue(p.XListMapKeys), "entries must all be names of item properties"))
				}
				if keys[k] {
					all = append(all, field.Invalid(fld.Child("x-kubernetes-list-map-keys").Path(), listValue(p.XListMapKeys), "must not contain duplicate entries"))
				}
				keys[k] = true
			}
		}
	}
	if p.Items != nil && p.XListType != nil && (*p.XListType == "set" || *p.XListType == "map") {
		if p.Items.Nullable {
			all = append(all, field.Forbidden(fld.Child("items").Child("nullable").Path(), "cannot be nullable when x-kubernetes-list-type is "+*p.XListType))
		}
		if *p.XListType == "map" {
			req := map[string]bool{}
			for _, r := range p.Items.Required {
				req[r] = true
			}
			for _, k := range p.XListMapKeys {
				o, ok := p.Items.Properties[k]
				if !ok {
					continue
				}
				if !req[k] && o.Default == nil {
					all = append(all, field.Required(fld.Child("items").Child("properties").Key(k).Child("default").Path(), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
				}
				if o.Nullable {
					all = append(all, field.Forbidden(fld.Child("items").Child("properties").Key(k).Child("nullable").Path(), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
				}
			}
		}
	}
	return all
}

func listValue(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

func validateSubresources(sr Subresources, fld field.Path) field.ErrorList {
	var all field.ErrorList
	if sr.Scale == nil {
		return nil
	}
	simple := func(p string, f field.Path) field.ErrorList {
		if p[0] != '.' {
			return field.ErrorList{field.Invalid(f, p, "must be a simple json path starting with .")}
		}
		return nil
	}
	if sr.Scale.SpecReplicasPath == "" {
		all = append(all, field.Required(fld.Child("scale.specReplicasPath"), ""))
	} else if errs := simple(sr.Scale.SpecReplicasPath, fld.Child("scale.specReplicasPath")); len(errs) > 0 {
		all = append(all, errs...)
	} else if !strings.HasPrefix(sr.Scale.SpecReplicasPath, ".spec.") {
		all = append(all, field.Invalid(fld.Child("scale.specReplicasPath"), sr.Scale.SpecReplicasPath, "should be a json path under .spec"))
	}
	if sr.Scale.StatusReplicasPath == "" {
		all = append(all, field.Required(fld.Child("scale.statusReplicasPath"), ""))
	} else if errs := simple(sr.Scale.StatusReplicasPath, fld.Child("scale.statusReplicasPath")); len(errs) > 0 {
		all = append(all, errs...)
	} else if !strings.HasPrefix(sr.Scale.StatusReplicasPath, ".status.") {
		all = append(all, field.Invalid(fld.Child("scale.statusReplicasPath"), sr.Scale.StatusReplicasPath, "should be a json path under .status"))
	}
	if l := sr.Scale.LabelSelectorPath; l != nil && *l != "" {
		if errs := simple(*l, fld.Child("scale.labelSelectorPath")); len(errs) > 0 {
			all = append(all, errs...)
		} else if !strings.HasPrefix(*l, ".spec.") && !strings.HasPrefix(*l, ".status.") {
			all = append(all, field.Invalid(fld.Child("scale.labelSelectorPath"), *l, "should be a json path under either .spec or .status"))
		}
	}
	return all
}

var (
	printerColumnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	printerColumnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

func validateColumn(col *PrinterColumn, fld field.Path) field.ErrorList {
	var all field.ErrorList
	in := func(l []string, v string) bool {
		for _, x := range l {
			if x == v {
				return true
			}
		}
		return false
	}
	if col.Name == "" {
		all = append(all, field.Required(fld.Child("name"), ""))
	}
	if col.Type == "" {
		all = append(all, field.Required(fld.Child("type"), "must be one of "+strings.Join(printerColumnTypes, ",")))
	} else if !in(printerColumnTypes, col.Type) {
		all = append(all, field.Invalid(fld.Child("type"), col.Type, "must be one of "+strings.Join(printerColumnTypes, ",")))
	}
	if col.Format != "" && !in(printerColumnFormats, col.Format) {
		all = append(all, field.Invalid(fld.Child("format"), col.Format, "must be one of "+strings.Join(printerColumnFormats, ",")))
	}
	if col.JSONPath == "" {
		all = append(all, field.Required(fld.Child("JSONPath"), ""))
	} else if col.JSONPath[0] != '.' {
		all = append(all, field.Invalid(fld.Child("JSONPath"), col.JSONPath, "must be a simple json path starting with ."))
	}
	return all
}

// validateCRDMeta is ValidateCustomResourceDefinition's metadata rules: ValidateObjectMetaDeclaratively
// (its declarative rules are alpha, and the merge, FilterCoveredHandwrittenErrors, keeps each
// message once) with the name a DNS subdomain equal to spec.names.plural+"."+spec.group.
func validateCRDMeta(c *CRD, meta any) field.ErrorList {
	om, _, err := decodeObjectMeta(meta, false, "")
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), meta, err.Error())}
	}
	nameFn := func(name string, prefix bool) []string {
		ret := nameIsDNSSubdomain(name, prefix)
		if name != c.Names.Plural+"."+c.Group {
			ret = append(ret, `must be spec.names.plural+"."+spec.group`)
		}
		return ret
	}
	return validateObjectMeta(om, false, nameFn, field.NewPath("metadata")).Filter()
}
