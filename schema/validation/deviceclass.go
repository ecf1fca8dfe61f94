package validation

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// originError is an error with its origin (field.Error.Origin in apimachinery), which decides
// whether an enforced declarative error covers a hand-written one; covered marks the
// hand-written errors the reference marks CoveredByDeclarative.
type originError struct {
	err     *field.Error
	origin  string
	covered bool
}

// handwritten collects a strategy's hand-written errors in order.
type handwritten []originError

func (h *handwritten) add(errs field.ErrorList, origin string, covered bool) {
	for _, e := range errs {
		*h = append(*h, originError{e, origin, covered})
	}
}

// declarative collects the enforced declarative errors in order.
type declarative []originError

func (d *declarative) add(errs field.ErrorList, origin string) {
	for _, e := range errs {
		*d = append(*d, originError{err: e, origin: origin})
	}
}

// merge is rest.ValidateDeclarativelyWithMigrationChecks: a covered hand-written error goes
// when an enforced declarative error has its type, field and origin (an Invalid one needs an
// origin to match: FilterCoveredHandwrittenErrors' matcher); the declarative errors follow.
// A declarative rule that ratchets (unchanged data) covers nothing: the hand-written error
// stays where it is.
func merge(h handwritten, d declarative) field.ErrorList {
	var out, decl field.ErrorList
	for _, e := range h {
		if e.covered && coveredBy(e, d) {
			continue
		}
		out = append(out, e.err)
	}
	for _, e := range d {
		decl = append(decl, e.err)
	}
	return withDeclarative(out, decl)
}

func coveredBy(h originError, d declarative) bool {
	for _, e := range d {
		if e.err.Type == h.err.Type && e.err.Field == h.err.Field && e.origin == h.origin &&
			(h.err.Type != field.ErrorTypeInvalid || h.origin != "") {
			return true
		}
	}
	return false
}

// DeviceClass: ValidateDeviceClass(Update). PrepareForCreate and PrepareForUpdate drop nothing
// under 1.37's gates (DRAExtendedResource is on) and set the generation, as the registry does.

func validateDeviceClass(obj map[string]any, opts Options) field.ErrorList {
	var h handwritten
	deviceClassMeta(&h, obj)
	spec := mapOf(obj["spec"])
	deviceClassSpec(&h, spec, nil, opts)
	var d declarative
	name := str(mapOf(obj["metadata"]), "name")
	d.add(longNameDeclarative(field.NewPath("metadata", "name"), name), "format=k8s-long-name")
	deviceClassSpecDeclarative(&d, spec, nil, false)
	return merge(h, d)
}

func validateDeviceClassUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	var h handwritten
	deviceClassMeta(&h, obj)
	h.add(coreObjectMetaUpdate(obj, old), "", false)
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	deviceClassSpec(&h, spec, oldSpec, opts)
	var d declarative
	if name := str(mapOf(obj["metadata"]), "name"); name != str(mapOf(old["metadata"]), "name") {
		d.add(longNameDeclarative(field.NewPath("metadata", "name"), name), "format=k8s-long-name")
	}
	if !semanticEqual(spec, oldSpec) {
		deviceClassSpecDeclarative(&d, spec, oldSpec, true)
	}
	return merge(h, d)
}

// deviceClassMeta is core's ValidateObjectMetaWithOpts with validate.LongName as the name
// function (its errors covered): the name's errors first, then the rest of the metadata.
func deviceClassMeta(h *handwritten, obj map[string]any) {
	name := str(mapOf(obj["metadata"]), "name")
	h.add(longNameDeclarative(field.NewPath("metadata", "name"), name), "format=k8s-long-name", true)
	// ValidateObjectMetaWithOpts (unlike the common ValidateObjectMetaAccessor) reports a
	// generateName with no name first; the registry generates names before validation, so only
	// DeviceClass's update-time call of the create rules can meet it.
	var errs field.ErrorList
	if md := mapOf(obj["metadata"]); str(md, "generateName") != "" && name == "" {
		errs = append(errs, field.InternalError(field.NewPath("metadata", "name"), fmt.Errorf("generateName was specified (%q), but no name was generated", str(md, "generateName"))))
	}
	h.add(append(errs, coreObjectMeta(obj, false, noNameRule)...), "", false)
}

// deviceClassSpec is validateDeviceClassSpec: the selectors (each a CEL expression, compiled
// unless the list is unchanged), each configuration, the extended resource name. oldSpec is
// nil on create.
func deviceClassSpec(h *handwritten, spec, oldSpec map[string]any, opts Options) {
	p := field.NewPath("spec")
	storedSelectors := oldSpec != nil && semanticEqual(spec["selectors"], oldSpec["selectors"])
	sels := listOf(spec["selectors"])
	if len(sels) > deviceSelectorsMaxSize {
		h.add(field.ErrorList{field.TooMany(p.Child("selectors"), len(sels), deviceSelectorsMaxSize)}, "maxItems", true)
	} else {
		h.add(deviceSelectors(p.Child("selectors"), sels, storedSelectors, opts), "", false)
	}
	storedConfig := oldSpec != nil && semanticEqual(spec["config"], oldSpec["config"])
	if cfg := listOf(spec["config"]); len(cfg) > deviceConfigMaxSize {
		h.add(field.ErrorList{field.TooMany(p.Child("config"), len(cfg), deviceConfigMaxSize)}, "maxItems", true)
	} else {
		for i, c := range cfg {
			deviceConfiguration(h, p.Child("config").Index(i), mapOf(c), storedConfig)
		}
	}
	if name, ok := spec["extendedResourceName"].(string); ok && !isExtendedResource(name) {
		h.add(field.ErrorList{field.Invalid(p.Child("extendedResourceName"), name, "must be a valid extended resource name")},
			"format=k8s-extended-resource-name", true)
	}
}

// deviceClassSpecDeclarative is Validate_DeviceClassSpec: at most 32 selectors and configs,
// each configuration's opaque driver, a valid extended resource name. ratchet skips a list or
// field equal to the old one's.
func deviceClassSpecDeclarative(d *declarative, spec, oldSpec map[string]any, ratchet bool) {
	p := field.NewPath("spec")
	if !ratchet || !semanticEqual(spec["selectors"], oldSpec["selectors"]) {
		d.add(maxItemsDeclarative(p.Child("selectors"), listOf(spec["selectors"]), deviceSelectorsMaxSize), "maxItems")
	}
	if !ratchet || !semanticEqual(spec["config"], oldSpec["config"]) {
		cfg := listOf(spec["config"])
		if e := maxItemsDeclarative(p.Child("config"), cfg, deviceConfigMaxSize); e != nil {
			d.add(e, "maxItems")
		} else {
			for i, c := range cfg {
				deviceConfigurationDeclarative(d, p.Child("config").Index(i), mapOf(c))
			}
		}
	}
	if name, ok := spec["extendedResourceName"].(string); ok && (!ratchet || name != oldSpec["extendedResourceName"]) {
		d.add(extendedResourceNameDeclarative(p.Child("extendedResourceName"), name), "format=k8s-extended-resource-name")
	}
}

// deviceConfiguration is validateDeviceConfiguration: opaque required, its driver a CSI
// driver name (covered), its parameters a JSON object.
func deviceConfiguration(h *handwritten, p field.Path, c map[string]any, stored bool) {
	op, ok := c["opaque"].(map[string]any)
	if !ok {
		h.add(field.ErrorList{field.Required(p.Child("opaque"), "")}, "", false)
		return
	}
	driverNameHandwritten(h, p.Child("opaque", "driver"), str(op, "driver"))
	h.add(rawExtensionObject(p.Child("opaque", "parameters"), op["parameters"], has(op, "parameters"), stored, opaqueParametersMaxLength), "", false)
}

// driverNameHandwritten is ValidateCSIDriverName with every rule covered.
func driverNameHandwritten(h *handwritten, p field.Path, d string) {
	if d == "" {
		h.add(field.ErrorList{field.Required(p, "")}, "", true)
		return
	}
	if len(d) > driverNameMaxLength {
		h.add(field.ErrorList{field.TooLong(p, "", driverNameMaxLength)}, "maxLength", true)
	}
	h.add(invalids(p, d, validation.IsDNS1123Subdomain(strings.ToLower(d))), "format=k8s-long-name-caseless", true)
}

// deviceConfigurationDeclarative is Validate_DeviceConfiguration: an opaque configuration's
// driver is required, a caseless DNS subdomain of at most 63 characters.
func deviceConfigurationDeclarative(d *declarative, p field.Path, c map[string]any) {
	op, ok := c["opaque"].(map[string]any)
	if !ok {
		return
	}
	dp := p.Child("opaque", "driver")
	drv := str(op, "driver")
	if drv == "" {
		d.add(field.ErrorList{field.Required(dp, "")}, "")
		return
	}
	d.add(invalids(dp, drv, validation.IsDNS1123SubdomainCaseless(drv)), "format=k8s-long-name-caseless")
	d.add(maxLengthDeclarative(dp, drv, driverNameMaxLength), "maxLength")
}
