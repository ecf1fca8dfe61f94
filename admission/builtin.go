package admission

import (
	"fmt"
	"sort"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// TotalAnnotationSizeLimit is the limit on the size of all annotations.
const TotalAnnotationSizeLimit = schema.TotalAnnotationSizeLimit

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
	ns, ok := c.lookup.Namespace(req.Namespace)
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

func sortedStrings(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
