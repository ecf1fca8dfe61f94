package gc

import (
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/status"
	"github.com/writepath/writepath/versions"
)

// Errors of Delete and Update are *status.Error values: the apiserver's HTTP code, reason and
// message. Snapshots the apiserver could never have stored are reported as *InputError.

func notFoundError(group, resource, name string) *status.Error {
	return status.NotFound(status.GroupResource{Group: group, Resource: resource}, name)
}

func invalidError(group, kind, name string, errs field.ErrorList) *status.Error {
	return status.Invalid(status.GroupKind{Group: group, Kind: kind}, name, errs)
}

func badRequest(msg string) *status.Error { return status.BadRequest(msg) }

// checkDeletePreconditions runs the versions package's DELETE precondition check, which words
// the conflict as rest.BeforeDelete (or the namespace registry) does.
func checkDeletePreconditions(k Kind, p *Preconditions, obj Object, m *meta) error {
	if p == nil || ((p.UID == nil || *p.UID == m.uid) && (p.ResourceVersion == nil || *p.ResourceVersion == m.resourceVersion)) {
		return nil
	}
	s := versions.Strategy{Group: k.Group, Resource: k.Resource, Kind: k.Kind}
	return versions.CheckDeletePreconditions(s, versions.Preconditions{UID: p.UID, ResourceVersion: p.ResourceVersion}, obj)
}
