package gc

import (
	"fmt"

	"github.com/writepath/writepath/status"
)

// CheckCreate answers the deletion-related refusals of a create: the NamespaceLifecycle
// admission plugin's 403 for a namespaced object created in a namespace that is Terminating
// (namespace is that namespace, or nil), then storage's 409 AlreadyExists when existing (the
// stored object of the same name, or nil) is there, prefixed "object is being deleted: " when
// existing is being deleted. It returns nil when neither applies. No input is modified.
func CheckCreate(obj, existing, namespace Object, kinds Kinds) error {
	m, err := readMeta(obj)
	if err != nil {
		return badRequest(err.Error())
	}
	k := (&catalog{user: kinds}).kindOf(&m)
	gr := status.GroupResource{Group: k.Group, Resource: k.Resource}
	if namespace != nil && k.Namespaced && !(k.Group == "" && k.Kind == "Namespace") {
		st, _ := namespace["status"].(map[string]any)
		if phase, _ := st["phase"].(string); phase == "Terminating" {
			e := status.Forbidden(gr, m.name, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", m.namespace))
			d := *e.Details
			d.Causes = append(append([]status.Cause{}, d.Causes...), status.Cause{Type: "NamespaceTerminating",
				Message: fmt.Sprintf("namespace %s is being terminated", m.namespace), Field: "metadata.namespace"})
			e.Details = &d
			return e
		}
	}
	if existing == nil {
		return nil
	}
	e := status.AlreadyExists(gr, m.name)
	if em, err := readMeta(existing); err == nil && em.deleting() {
		e.Message = "object is being deleted: " + e.Message
	}
	return e
}
