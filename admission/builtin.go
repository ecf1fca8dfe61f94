package admission

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
	names "github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// The name generator's alphabet and lengths (k8s.io/apiserver/pkg/storage/names).
const (
	nameAlphabet           = "bcdfghjklmnpqrstvwxz2456789"
	randomLength           = 5
	maxGeneratedNameLength = 63 - randomLength
	// TotalAnnotationSizeLimit is the limit on the size of all annotations.
	TotalAnnotationSizeLimit = schema.TotalAnnotationSizeLimit
)

// GenerateName returns generateName's name: the base (cut to 58 characters)
// and five characters of the apiserver's alphabet chosen by random.
func GenerateName(base string, random func(n int) int) string {
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	var b strings.Builder
	b.WriteString(base)
	for i := 0; i < randomLength; i++ {
		b.WriteByte(nameAlphabet[random(len(nameAlphabet))])
	}
	return b.String()
}

// namespaceLifecycle is the NamespaceLifecycle plugin's Admit.
func (c *Chain) namespaceLifecycle(req *Request, obj map[string]any) error {
	isNamespace := req.Kind.Group == "" && req.Kind.Kind == "Namespace"
	if req.Operation == Delete && isNamespace {
		switch req.Name {
		case "default", "kube-system", "kube-public":
			return status.Forbidden(status.GroupResource{Group: req.Resource.Group, Resource: req.Resource.Resource}, req.Name,
				fmt.Errorf("this namespace may not be deleted"))
		}
	}
	if req.Namespace == "" || isNamespace || req.Operation != Create {
		return nil
	}
	if req.Kind.Group == "authorization.k8s.io" && (req.Kind.Kind == "LocalSubjectAccessReview") {
		return nil
	}
	ns, ok := c.namespaces[req.Namespace]
	if !ok {
		return status.NotFound(status.GroupResource{Resource: "namespaces"}, req.Namespace)
	}
	if getString(ns, "status", "phase") == "Terminating" {
		st := forbidden(req, obj, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", req.Namespace))
		st.Details.Causes = append(st.Details.Causes, status.Cause{Type: "NamespaceTerminating",
			Message: fmt.Sprintf("namespace %s is being terminated", req.Namespace), Field: "metadata.namespace"})
		return st
	}
	return nil
}

// systemFields is what rest.BeforeCreate does to metadata: no deletion
// fields, a fresh uid and creationTimestamp, a generated name.
func (c *Chain) systemFields(req *Request, obj map[string]any) (map[string]any, error) {
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	if req.Namespace != "" {
		if ns, _ := md["namespace"].(string); ns != "" && ns != req.Namespace {
			return nil, status.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		md["namespace"] = req.Namespace
	}
	delete(md, "deletionTimestamp")
	delete(md, "deletionGracePeriodSeconds")
	env := c.cfg.Env
	if env.Now == nil || env.UID == nil {
		return nil, status.InternalError(fmt.Errorf("admission: Env.Now and Env.UID are needed to create objects"))
	}
	md["creationTimestamp"] = env.Now().UTC().Format("2006-01-02T15:04:05Z")
	md["uid"] = env.UID()
	if g, _ := md["generateName"].(string); g != "" {
		if n, _ := md["name"].(string); n == "" {
			if env.Random == nil {
				return nil, status.InternalError(fmt.Errorf("admission: Env.Random is needed to generate names"))
			}
			md["name"] = GenerateName(g, env.Random)
		}
	}
	return obj, nil
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, x := range m {
		s, _ := x.(string)
		out[k] = s
	}
	return out
}

func sortedStrings(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// validateObjectMeta is ValidateObjectMetaAccessor on create and
// ValidateObjectMetaAccessorUpdate on update, in their order, as strategies
// call them (names as DNS subdomains), returned as the 422 Invalid error of
// the kind. Not checked: the namespace's presence (the kind's scope is not
// known here) and, on update, resourceVersion (the registry fills it in for
// unconditional updates before validating).
func validateObjectMeta(req *Request, obj map[string]any) error {
	md, _ := obj["metadata"].(map[string]any)
	fld := field.NewPath("metadata")
	var errs field.ErrorList
	name, _ := md["name"].(string)
	if req.Operation == Update && req.OldObject != nil {
		errs = validateMetaUpdate(md, getMap(req.OldObject, "metadata"), fld)
	} else {
		if g, _ := md["generateName"].(string); g != "" {
			for _, m := range names.NameIsDNSSubdomain(g, true) {
				errs = append(errs, field.Invalid(fld.Child("generateName"), g, m))
			}
		}
		if name == "" {
			errs = append(errs, field.Required(fld.Child("name"), "name or generateName is required"))
		} else {
			for _, m := range names.NameIsDNSSubdomain(name, false) {
				errs = append(errs, field.Invalid(fld.Child("name"), name, m))
			}
		}
		errs = append(errs, validateGeneration(md, fld)...)
		errs = append(errs, validateLabelsAnnotationsOwners(md, fld)...)
		errs = append(errs, validateFinalizers(stringList(md["finalizers"]), fld.Child("finalizers"))...)
	}
	if len(errs) == 0 {
		return nil
	}
	return status.Invalid(status.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}, name, errs)
}

func validateGeneration(md map[string]any, fld field.Path) field.ErrorList {
	if g, ok := md["generation"].(int64); ok && g < 0 {
		return field.ErrorList{field.Invalid(fld.Child("generation"), g, "must be greater than or equal to 0")}
	}
	return nil
}

func validateLabelsAnnotationsOwners(md map[string]any, fld field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, schema.ValidateLabels(stringMap(md["labels"]), fld.Child("labels"))...)
	errs = append(errs, schema.ValidateAnnotations(stringMap(md["annotations"]), fld.Child("annotations"))...)
	refs, _ := md["ownerReferences"].([]any)
	firstController := ""
	for i, r := range refs {
		rm, _ := r.(map[string]any)
		p := fld.Child("ownerReferences").Index(i)
		av, _ := rm["apiVersion"].(string)
		if av == "" {
			errs = append(errs, field.Required(p.Child("apiVersion"), "must not be empty"))
		} else if parts := strings.Split(av, "/"); len(parts) > 2 || parts[len(parts)-1] == "" {
			errs = append(errs, field.Invalid(p.Child("apiVersion"), av, "must be <group>/<version> or <version>"))
		}
		for _, k := range []string{"kind", "name", "uid"} {
			if s, _ := rm[k].(string); s == "" {
				errs = append(errs, field.Required(p.Child(k), "must not be empty"))
			}
		}
		if b, _ := rm["controller"].(bool); b {
			kind, _ := rm["kind"].(string)
			n, _ := rm["name"].(string)
			if firstController != "" {
				errs = append(errs, field.Invalid(fld.Child("ownerReferences"), refs,
					fmt.Sprintf("Only one reference can have Controller set to true. Found \"true\" in references for %v and %v", firstController, kind+"/"+n)))
			} else {
				firstController = kind + "/" + n
			}
		}
	}
	return errs
}

func validateFinalizers(fins []string, fld field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range fins {
		for _, m := range names.IsQualifiedName(f) {
			errs = append(errs, field.Invalid(fld, f, m))
		}
	}
	if contains(fins, "orphan") && contains(fins, "foregroundDeletion") {
		errs = append(errs, field.Invalid(fld, fins, "finalizer orphan and foregroundDeletion cannot be both set"))
	}
	return errs
}

// validateMetaUpdate is ValidateObjectMetaAccessorUpdate without the
// resourceVersion check.
func validateMetaUpdate(md, old map[string]any, fld field.Path) field.ErrorList {
	var errs field.ErrorList
	fins := stringList(md["finalizers"])
	if old["deletionTimestamp"] != nil {
		oldF := stringList(old["finalizers"])
		var extra []string
		for _, f := range fins {
			if !contains(oldF, f) && !contains(extra, f) {
				extra = append(extra, f)
			}
		}
		sort.Strings(extra)
		if len(extra) > 0 {
			errs = append(errs, field.Forbidden(fld.Child("finalizers"), fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", extra)))
		}
	}
	errs = append(errs, validateGeneration(md, fld)...)
	g, _ := md["generation"].(int64)
	if og, _ := old["generation"].(int64); g < og {
		errs = append(errs, field.Invalid(fld.Child("generation"), g, "must not be decremented"))
	}
	for _, k := range []string{"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		if !value.Equal(md[k], old[k]) {
			nv := md[k]
			if nv == nil && (k == "name" || k == "namespace" || k == "uid") {
				nv = ""
			}
			errs = append(errs, field.Invalid(fld.Child(k), nv, "field is immutable"))
		}
	}
	return append(errs, validateLabelsAnnotationsOwners(md, fld)...)
}
