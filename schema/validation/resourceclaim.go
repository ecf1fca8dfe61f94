package validation

import (
	"fmt"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// ResourceClaimTemplate and ResourceClaim (resource.k8s.io/v1): the strategies of
// pkg/registry/resource/resourceclaimtemplate and resourceclaim with 1.37's enforced declarative
// rules. Both run AuthorizedForAdmin first on create, which reads the namespace through
// Options.Namespace (an adminAccess request needs the resource.kubernetes.io/admin-access label
// on it).

// validateResourceClaimTemplate is ValidateResourceClaimTemplate merged with the declarative
// Validate_ResourceClaimTemplate.
func validateResourceClaimTemplate(obj map[string]any, opts Options) field.ErrorList {
	var h handwritten
	h.add(authorizedForAdmin(obj, listOf(claimTemplateDevices(obj)["requests"]), opts), "", false)
	resourceClaimTemplateHandwritten(&h, obj, opts)
	var d declarative
	p := field.NewPath("spec", "spec", "devices")
	deviceClaimDeclarative(&d, p, claimTemplateDevices(obj), nil, false, claimTemplateDevicesType)
	return merge(h, d)
}

// validateResourceClaimTemplateUpdate: the template validated again as new (its CEL compiled
// again: the reference passes stored false), its metadata update and an immutable spec (the
// internal spec as the bad value); the declarative rules ratchet on what did not change.
func validateResourceClaimTemplateUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	var h handwritten
	resourceClaimTemplateHandwritten(&h, obj, opts)
	h.add(coreObjectMetaUpdate(obj, old), "", false)
	st := goTypeAt("resource.k8s.io", "ResourceClaimTemplate", "spec")
	if !goSemanticEqual(st, obj["spec"], old["spec"]) {
		h.add(field.ErrorList{field.Invalid(field.NewPath("spec"), internalGo(st, obj["spec"]), "field is immutable")}, "", false)
	}
	var d declarative
	if !semanticEqual(obj["spec"], old["spec"]) && !semanticEqual(mapOf(obj["spec"])["spec"], mapOf(old["spec"])["spec"]) {
		p := field.NewPath("spec", "spec", "devices")
		deviceClaimDeclarative(&d, p, claimTemplateDevices(obj), claimTemplateDevices(old), true, claimTemplateDevicesType)
	}
	return merge(h, d)
}

var (
	claimTemplateDevicesType = goTypeAt("resource.k8s.io", "ResourceClaimTemplate", "spec", "spec", "devices")
	claimDevicesType         = goTypeAt("resource.k8s.io", "ResourceClaim", "spec", "devices")
)

func claimTemplateDevices(obj map[string]any) map[string]any {
	return mapOf(mapOf(mapOf(obj["spec"])["spec"])["devices"])
}

func claimDevices(obj map[string]any) map[string]any {
	return mapOf(mapOf(obj["spec"])["devices"])
}

func resourceClaimTemplateHandwritten(h *handwritten, obj map[string]any, opts Options) {
	h.add(coreObjectMeta(obj, true, nil), "", false)
	h.add(templateObjectMeta(field.NewPath("spec", "metadata"), mapOf(mapOf(obj["spec"])["metadata"])), "", false)
	deviceClaimSpec(h, field.NewPath("spec", "spec", "devices"), claimTemplateDevices(obj), false, opts)
}

// templateObjectMetaFields are ObjectMeta's fields other than labels and annotations, in
// declaration order, with the names validateFieldAllowList gives them (the Go name with its
// first rune lower-cased: UID is "uID").
var templateObjectMetaFields = [][2]string{{"name", "name"}, {"generateName", "generateName"}, {"namespace", "namespace"},
	{"selfLink", "selfLink"}, {"uid", "uID"}, {"resourceVersion", "resourceVersion"}, {"generation", "generation"},
	{"creationTimestamp", "creationTimestamp"}, {"deletionTimestamp", "deletionTimestamp"},
	{"deletionGracePeriodSeconds", "deletionGracePeriodSeconds"}, {"ownerReferences", "ownerReferences"},
	{"finalizers", "finalizers"}, {"managedFields", "managedFields"}}

// templateObjectMeta is core's ValidateTemplateObjectMeta: annotations, labels, and any other
// field set is "cannot be set".
func templateObjectMeta(p field.Path, md map[string]any) field.ErrorList {
	errs := schema.ValidateAnnotations(stringMap(md["annotations"]), p.Child("annotations"))
	errs = append(errs, schema.ValidateLabels(stringMap(md["labels"]), p.Child("labels"))...)
	for _, f := range templateObjectMetaFields {
		v, ok := md[f[0]]
		if !ok || v == nil {
			continue
		}
		if x, ok := v.(string); ok && x == "" {
			continue
		}
		if n, ok := v.(int64); ok && n == 0 && f[0] == "generation" {
			continue
		}
		errs = append(errs, field.Forbidden(p.Child(f[1]), "cannot be set"))
	}
	return errs
}

// validateResourceClaim is ValidateResourceClaim merged with Validate_ResourceClaim.
func validateResourceClaim(obj map[string]any, opts Options) field.ErrorList {
	var h handwritten
	h.add(authorizedForAdmin(obj, listOf(claimDevices(obj)["requests"]), opts), "", false)
	h.add(coreObjectMeta(obj, true, nil), "", false)
	deviceClaimSpec(&h, field.NewPath("spec", "devices"), claimDevices(obj), false, opts)
	var d declarative
	deviceClaimDeclarative(&d, field.NewPath("spec", "devices"), claimDevices(obj), nil, false, claimDevicesType)
	return merge(h, d)
}

// validateResourceClaimUpdate: metadata, and an immutable spec (the declarative Immutable's
// error, bad value null, covers the hand-written one). /status: claimstatus.go.
func validateResourceClaimUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	if opts.Subresource == "status" {
		return validateResourceClaimStatusUpdate(obj, old, opts)
	}
	var h handwritten
	h.add(coreObjectMeta(obj, true, nil), "", false)
	h.add(coreObjectMetaUpdate(obj, old), "", false)
	var d declarative
	st := goTypeAt("resource.k8s.io", "ResourceClaim", "spec")
	if !goSemanticEqual(st, obj["spec"], old["spec"]) {
		h.add(field.ErrorList{field.Invalid(field.NewPath("spec"), internalGo(st, obj["spec"]), "field is immutable")}, "immutable", true)
		d.add(field.ErrorList{field.Invalid(field.NewPath("spec"), nil, "field is immutable")}, "immutable")
	}
	return merge(h, d)
}

// adminAccessLabel is the namespace label that allows admin access to devices.
const adminAccessLabel = "resource.kubernetes.io/admin-access"

// authorizedForAdmin is AuthorizedForAdmin on create: the first request of the claim (or
// template: the path is a claim's all the same) asking for admin access needs the namespace's
// label. Subrequests cannot ask for it.
func authorizedForAdmin(obj map[string]any, reqs []any, opts Options) field.ErrorList {
	for i, raw := range reqs {
		if b, _ := mapOf(mapOf(raw)["exactly"])["adminAccess"].(bool); b {
			return adminAccessNamespace(obj, field.NewPath("spec", "devices", "requests").Index(i).Child("adminAccess"), opts)
		}
	}
	return nil
}

// adminAccessNamespace reads the object's namespace and refuses admin access at p unless the
// namespace carries the label.
func adminAccessNamespace(obj map[string]any, p field.Path, opts Options) field.ErrorList {
	if opts.Namespace == nil {
		return nil
	}
	ns, err := opts.Namespace()
	if err == nil && ns == nil {
		err = fmt.Errorf("namespaces %q not found", str(mapOf(obj["metadata"]), "namespace"))
	}
	if err != nil {
		return field.ErrorList{field.InternalError(p, fmt.Errorf("could not retrieve namespace to verify admin access: %w", err))}
	}
	if str(mapOf(mapOf(ns["metadata"])["labels"]), adminAccessLabel) != "true" {
		return field.ErrorList{field.Forbidden(p, "admin access to devices requires the `"+adminAccessLabel+": true` label on the containing namespace")}
	}
	return nil
}

// prepareResourceClaimTemplate and prepareResourceClaim are dropDisabledFields: derived
// attributes go (DRADerivedAttributes is off) unless the stored spec uses them.
func prepareResourceClaimTemplateCreate(obj map[string]any, _ Options) map[string]any {
	return dropDerivedAttributes(obj, nil, "spec", "spec", "devices")
}

func prepareResourceClaimTemplateUpdate(obj, old map[string]any, _ Options) map[string]any {
	return dropDerivedAttributes(obj, old, "spec", "spec", "devices")
}

func prepareResourceClaimCreate(obj map[string]any, _ Options) map[string]any {
	return dropDerivedAttributes(obj, nil, "spec", "devices")
}

func prepareResourceClaimUpdate(obj, old map[string]any, opts Options) map[string]any {
	if opts.Subresource == "status" {
		return prepareResourceClaimStatusUpdate(obj, old)
	}
	if opts.Subresource != "" {
		return obj
	}
	return dropDerivedAttributes(obj, old, "spec", "devices")
}

// dropDerivedAttributes removes exactly.derivedAttributes and each firstAvailable item's from
// the requests of the device claim at path, unless old's requests have any; obj is returned
// unchanged when there are none, else a copy.
func dropDerivedAttributes(obj, old map[string]any, path ...string) map[string]any {
	devices := func(o map[string]any) map[string]any {
		m := o
		for _, k := range path {
			m = mapOf(m[k])
		}
		return m
	}
	if old != nil && usesDerivedAttributes(devices(old)) {
		return obj
	}
	if !holdsDerivedAttributes(devices(obj)) {
		return obj
	}
	out, err := value.DeepCopyMap(obj)
	if err != nil {
		return obj
	}
	for _, raw := range listOf(devices(out)["requests"]) {
		r := mapOf(raw)
		if ex := mapOf(r["exactly"]); ex != nil {
			delete(ex, "derivedAttributes")
		}
		for _, s := range listOf(r["firstAvailable"]) {
			if m := mapOf(s); m != nil {
				delete(m, "derivedAttributes")
			}
		}
	}
	return out
}

// usesDerivedAttributes is draDerivedAttributesInUse: a request or subrequest with derived
// attributes.
func usesDerivedAttributes(dc map[string]any) bool {
	for _, raw := range listOf(dc["requests"]) {
		r := mapOf(raw)
		if len(listOf(mapOf(r["exactly"])["derivedAttributes"])) > 0 {
			return true
		}
		for _, s := range listOf(r["firstAvailable"]) {
			if len(listOf(mapOf(s)["derivedAttributes"])) > 0 {
				return true
			}
		}
	}
	return false
}

// holdsDerivedAttributes reports a derivedAttributes key at all (an empty list is dropped too).
func holdsDerivedAttributes(dc map[string]any) bool {
	for _, raw := range listOf(dc["requests"]) {
		r := mapOf(raw)
		if _, ok := mapOf(r["exactly"])["derivedAttributes"]; ok {
			return true
		}
		for _, s := range listOf(r["firstAvailable"]) {
			if _, ok := mapOf(s)["derivedAttributes"]; ok {
				return true
			}
		}
	}
	return false
}
