package apply

import (
	"fmt"
	"time"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/managedfields"
	"github.com/writepath/writepath/schema"
)

// ScaleGVK is the kind of the /scale subresource's body.
var ScaleGVK = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// ScaleRequest is a write through the /scale subresource (kubectl scale, the
// horizontal-pod-autoscaler): the apiserver maps the parent's managedFields to the Scale
// (only .spec.replicas), runs the field manager on the Scale, and maps the result back.
type ScaleRequest struct {
	// Parent is the stored object (Deployment, ReplicaSet, StatefulSet, ReplicationController or a
	// custom resource with a scale subresource).
	Parent map[string]any
	// Scale is the new autoscaling/v1 Scale (an update; start from ScaleOf) or, with Apply, the
	// apply configuration.
	Scale map[string]any
	Apply bool
	// Manager, UserAgent, Force and Now are as in Request and UpdateRequest.
	Manager   string
	UserAgent string
	Force     bool
	Now       time.Time
	// ReplicasPaths maps each apiVersion of the parent to its replicas path (ScaleReplicasPaths
	// for built-ins; the CRD's specReplicasPath for custom resources).
	ReplicasPaths map[string][]string
	// GroupVersion is the endpoint's group version ("apps/v1"); empty means the parent's.
	GroupVersion string
	// Types converts Scale objects; nil means Builtin.
	Types TypeConverter
}

// ScaleReplicasPaths returns the replicas paths of a built-in kind's /scale (apps Deployments,
// ReplicaSets and StatefulSets at every apps version; v1 ReplicationControllers), nil for kinds
// without one.
func ScaleReplicasPaths(gvk schema.GroupVersionKind) map[string][]string {
	replicas := []string{"spec", "replicas"}
	switch gvk.Group + "/" + gvk.Kind {
	case "apps/Deployment", "apps/ReplicaSet", "apps/StatefulSet":
		return map[string][]string{"apps/v1": replicas, "apps/v1beta1": replicas, "apps/v1beta2": replicas}
	case "/ReplicationController":
		return map[string][]string{"v1": replicas}
	}
	return nil
}

var replicasInScale = fieldpath.MakePathOrDie("spec", "replicas")

// ScaleOf returns the Scale the apiserver builds from parent before a /scale write: name,
// namespace, uid, resourceVersion, creationTimestamp, spec.replicas (0 when unset) and
// status.replicas (from statusReplicasPath, when given), with parent's managedFields mapped to
// the Scale (only the owners of the replicas path remain).
func ScaleOf(parent map[string]any, replicasPaths map[string][]string, statusReplicasPath []string) (map[string]any, error) {
	av, _ := parent["apiVersion"].(string)
	md := map[string]any{}
	for _, k := range []string{"name", "namespace", "uid", "resourceVersion", "creationTimestamp"} {
		if v, ok := metadataOf(parent)[k]; ok {
			md[k] = toModel(v)
		}
	}
	replicas := any(int64(0))
	if p, ok := replicasPaths[av]; ok {
		if v, found := lookup(parent, p); found {
			replicas = toModel(v)
		}
	}
	scale := map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": md, "spec": map[string]any{"replicas": replicas}}
	if statusReplicasPath != nil {
		st := any(int64(0))
		if v, found := lookup(parent, statusReplicasPath); found {
			st = toModel(v)
		}
		scale["status"] = map[string]any{"replicas": st}
	}
	parentManaged, err := managedfields.DecodeObject(parent)
	if err != nil {
		return nil, err
	}
	list, err := managedfields.EncodeList(toScaleManaged(parentManaged, replicasPaths))
	if err != nil {
		return nil, err
	}
	setManagedList(scale, list)
	return scale, nil
}

// toScaleManaged is ScaleHandler.ToSubresource.
func toScaleManaged(parent managedfields.Managed, paths map[string][]string) managedfields.Managed {
	out := managedfields.Managed{Fields: fieldpath.ManagedFields{}, Times: map[string]*time.Time{}}
	for id, vs := range parent.Fields {
		p, ok := paths[string(vs.APIVersion())]
		if !ok || p == nil {
			continue
		}
		if vs.Set().Has(makePath(p)) {
			out.Fields[id] = fieldpath.NewVersionedSet(fieldpath.NewSet(replicasInScale), "autoscaling/v1", vs.Applied())
			out.Times[id] = parent.Times[id]
		}
	}
	return out
}

// toParentManaged is ScaleHandler.ToParent. Managers new to the parent get no time (the
// apiserver looks their time up in the parent's entries).
func toParentManaged(parent, scale managedfields.Managed, paths map[string][]string, gv string) managedfields.Managed {
	out := managedfields.Managed{Fields: fieldpath.ManagedFields{}, Times: map[string]*time.Time{}}
	scaleFields := make(fieldpath.ManagedFields, len(scale.Fields))
	for k, v := range scale.Fields {
		scaleFields[k] = v
	}
	for id, vs := range parent.Fields {
		p, ok := paths[string(vs.APIVersion())]
		if !ok {
			continue
		}
		if p == nil || !vs.Set().Has(makePath(p)) {
			out.Fields[id] = vs
			out.Times[id] = parent.Times[id]
			continue
		}
		if _, ok := scaleFields[id]; !ok {
			s := vs.Set().Difference(fieldpath.NewSet(makePath(p)))
			if !s.Empty() {
				out.Fields[id] = fieldpath.NewVersionedSet(s, vs.APIVersion(), vs.Applied())
				out.Times[id] = parent.Times[id]
			}
		} else {
			out.Fields[id] = vs
			out.Times[id] = parent.Times[id]
			delete(scaleFields, id)
		}
	}
	for id, vs := range scaleFields {
		if !vs.Set().Has(replicasInScale) {
			continue
		}
		var set *fieldpath.Set
		if p, ok := paths[gv]; ok && p != nil {
			set = fieldpath.NewSet(makePath(p))
		} else {
			set = fieldpath.NewSet(fieldpath.Path{})
		}
		out.Fields[id] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(gv), vs.Applied())
		out.Times[id] = parent.Times[id]
	}
	return out
}

// Scale computes a write through /scale: the parent object the apiserver stores (its replicas
// and managedFields), or the error (409 conflicts of a Scale apply, ...). Inputs are not changed.
func Scale(req ScaleRequest) (Result, error) {
	gv := req.GroupVersion
	if gv == "" {
		gv, _ = req.Parent["apiVersion"].(string)
	}
	parentManaged, err := managedfields.DecodeObject(req.Parent)
	if err != nil {
		return Result{}, internalError(err)
	}
	oldScale, err := ScaleOf(req.Parent, req.ReplicasPaths, nil)
	if err != nil {
		return Result{}, internalError(err)
	}
	types := req.Types
	if types == nil {
		types = Builtin
	}
	var newScale map[string]any
	if req.Apply {
		r, err := Apply(Request{Live: oldScale, Config: req.Scale, Kind: ScaleGVK, Manager: req.Manager, Force: req.Force,
			Subresource: "scale", Now: req.Now, Types: types, LibraryOnly: true})
		if err != nil {
			return Result{}, err
		}
		newScale = r.Object
	} else {
		r, err := Update(UpdateRequest{Live: oldScale, Object: req.Scale, Kind: ScaleGVK, Manager: req.Manager, UserAgent: req.UserAgent,
			OptionsKind: "UpdateOptions", Subresource: "scale", Now: req.Now, Types: types, LibraryOnly: true})
		if err != nil {
			return Result{}, err
		}
		newScale = r.Object
	}
	scaleManaged, err := managedfields.DecodeObject(newScale)
	if err != nil {
		return Result{}, internalError(err)
	}
	merged := toParentManaged(parentManaged, scaleManaged, req.ReplicasPaths, gv)
	list, err := managedfields.EncodeList(merged)
	if err != nil {
		return Result{}, internalError(err)
	}
	out := toModelMap(req.Parent)
	setManagedList(out, list)
	av, _ := out["apiVersion"].(string)
	if p, ok := req.ReplicasPaths[av]; ok && p != nil {
		if v, found := lookup(newScale, []string{"spec", "replicas"}); found {
			setPath(out, p, v, true)
		}
	} else {
		return Result{}, internalError(fmt.Errorf("no replicas path for %s", av))
	}
	out = keepTimesOnNoop(out, req.Parent)
	return Result{Object: out, NoOp: equalObjects(out, req.Parent)}, nil
}
