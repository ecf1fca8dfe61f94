package registry

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/merge"
	"github.com/writepath/writepath/patch"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
	"github.com/writepath/writepath/versions"
)

// The /scale subresource (k8s.io/kubernetes pkg/registry/apps/deployment/storage ScaleREST and
// its siblings; apiextensions-apiserver's customresource ScaleREST): the body is an
// autoscaling/v1 Scale built from the parent; a write changes the parent's replicas.

func (h *handler) replicasPaths() map[string][]string {
	if h.ep.crd != nil {
		return apply.CRDScaleReplicasPaths(h.ep.crd)
	}
	return apply.ScaleReplicasPaths(h.ep.gvk)
}

// scaleSpec is where the parent keeps its status replicas and selector.
func (h *handler) scaleSpec() (statusReplicas, selector string, format string) {
	if h.ep.crd != nil {
		if s := h.ep.version.Subresources.Scale; s != nil {
			sel := ""
			if s.LabelSelectorPath != nil {
				sel = *s.LabelSelectorPath
			}
			return s.StatusReplicasPath, sel, ""
		}
		return "", "", ""
	}
	if s := h.ep.builtin.Subresources.Scale; s != nil {
		return s.StatusReplicasPath, s.LabelSelectorPath, s.SelectorFormat
	}
	return "", "", ""
}

func jsonPath(p string) []string {
	p = strings.TrimPrefix(p, ".")
	if p == "" {
		return nil
	}
	return strings.Split(p, ".")
}

// scaleOf is the Scale of parent: apply.ScaleOf and the status selector.
// scaleAnswer is the Scale a response carries: without managedFields (the scale REST storage
// builds the answer from the parent's name, namespace, uid, resourceVersion and
// creationTimestamp only; recorded: deployment/get-scale, crd-widget/get-scale).
func (h *handler) scaleAnswer(parent map[string]any) (map[string]any, error) {
	s, err := h.scaleOf(parent)
	if err != nil {
		return nil, err
	}
	s = shallow(s)
	if md, ok := s["metadata"].(map[string]any); ok {
		md = shallow(md)
		delete(md, "managedFields")
		s["metadata"] = md
	}
	// autoscaling/v1 ScaleSpec.Replicas is omitempty: 0 replicas is "spec": {}
	// (recorded: deployment/patch-scale-merge).
	if sp, ok := s["spec"].(map[string]any); ok {
		if r, ok := sp["replicas"].(int64); ok && r == 0 {
			sp = shallow(sp)
			delete(sp, "replicas")
			s["spec"] = sp
		}
	}
	return s, nil
}

func (h *handler) scaleOf(parent map[string]any) (map[string]any, error) {
	statusPath, selPath, format := h.scaleSpec()
	s, err := apply.ScaleOf(parent, h.replicasPaths(), jsonPath(statusPath))
	if err != nil {
		return nil, err
	}
	if sel := selectorString(parent, jsonPath(selPath), format); sel != "" {
		s, _ = value.DeepCopyMap(s)
		st, _ := s["status"].(map[string]any)
		if st == nil {
			st = map[string]any{}
			s["status"] = st
		}
		st["selector"] = sel
	}
	return s, nil
}

// selectorString formats the parent's selector as the Scale's status.selector: a string as is
// (custom resources), a map of labels or a LabelSelector as metav1.FormatLabelSelector writes
// them (keys sorted; expressions after labels).
func selectorString(obj map[string]any, path []string, format string) string {
	if len(path) == 0 {
		return ""
	}
	var v any = obj
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	switch format {
	case "":
		s, _ := v.(string)
		return s
	case "MatchLabels":
		m, _ := v.(map[string]any)
		return labelsString(m)
	}
	m, _ := v.(map[string]any)
	if m == nil {
		return ""
	}
	ml, _ := m["matchLabels"].(map[string]any)
	var parts []string
	if s := labelsString(ml); s != "" {
		parts = append(parts, s)
	}
	exprs, _ := m["matchExpressions"].([]any)
	for _, e := range exprs {
		em, _ := e.(map[string]any)
		key, _ := em["key"].(string)
		op, _ := em["operator"].(string)
		var vals []string
		for _, x := range asList(em["values"]) {
			if s, ok := x.(string); ok {
				vals = append(vals, s)
			}
		}
		sort.Strings(vals)
		switch op {
		case "In":
			parts = append(parts, fmt.Sprintf("%s in (%s)", key, strings.Join(vals, ",")))
		case "NotIn":
			parts = append(parts, fmt.Sprintf("%s notin (%s)", key, strings.Join(vals, ",")))
		case "Exists":
			parts = append(parts, key)
		case "DoesNotExist":
			parts = append(parts, "!"+key)
		}
	}
	if len(parts) == 0 {
		if len(exprs) == 0 && len(ml) == 0 {
			return ""
		}
	}
	return strings.Join(parts, ",")
}

func asList(v any) []any { l, _ := v.([]any); return l }

func labelsString(m map[string]any) string {
	keys := sortedKeys(m)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		s, _ := m[k].(string)
		parts = append(parts, k+"="+s)
	}
	return strings.Join(parts, ",")
}

// updateScale is PUT on /scale.
func (h *handler) updateScale(format codec.Format, o writeOptions) (Response, []Write, error) {
	ep := h.ep
	d, err := h.readBody(format, apply.ScaleGVK, schema.FieldValidationIgnore)
	if err != nil {
		return Response{}, nil, err
	}
	if err := checkURLName(d.obj, ep.Name); err != nil {
		return Response{}, nil, err
	}
	live, err := h.live()
	if err != nil {
		return Response{}, nil, err
	}
	if live == nil {
		return Response{}, nil, status.NotFound(ep.groupResource(), ep.Name)
	}
	return h.writeScale(live, d.obj, false, o)
}

// patchScale is PATCH on /scale: the patch applies to the parent's Scale.
func (h *handler) patchScale(pt string, live map[string]any, o writeOptions) (Response, []Write, error) {
	ep := h.ep
	if live == nil {
		return Response{}, nil, status.NotFound(ep.groupResource(), ep.Name)
	}
	old, err := h.scaleOf(live)
	if err != nil {
		return Response{}, nil, status.InternalError(err)
	}
	var scale map[string]any
	switch pt {
	case JSONPatch:
		r, err := patch.ApplyJSONPatch(old, h.req.Body, patch.Options{FieldValidation: o.level()})
		if err != nil {
			return Response{}, nil, patchStatus(err)
		}
		scale = r.Object
	case MergePatch:
		r, err := merge.ApplyMergePatch(old, h.req.Body, merge.Options{FieldValidation: o.level()})
		if err != nil {
			return Response{}, nil, patchStatus(err)
		}
		scale = r.Object
	case StrategicPatch:
		k, err := schema.Builtin(apply.ScaleGVK)
		if err != nil {
			return Response{}, nil, status.InternalError(err)
		}
		meta, err := merge.KindMeta(k)
		if err != nil {
			return Response{}, nil, status.InternalError(err)
		}
		r, err := merge.ApplyStrategic(old, h.req.Body, meta, merge.Options{FieldValidation: o.level()})
		if err != nil {
			return Response{}, nil, patchStatus(err)
		}
		scale = r.Object
	case ApplyPatch:
		doc, err := codec.Options{AllowDuplicates: true, Format: codec.FormatYAML, MaxBytes: -1}.Decode(h.req.Body)
		if err != nil {
			return Response{}, nil, status.BadRequest(fmt.Sprintf("error encoding patch: %v", err))
		}
		cfg, ok := doc.Value.(map[string]any)
		if !ok {
			return Response{}, nil, notAnApplyObject(doc.Value)
		}
		return h.writeScale(live, cfg, true, o)
	}
	if err := checkPatchedName(scale, ep.Name, ep.Namespace); err != nil {
		return Response{}, nil, err
	}
	return h.writeScale(live, scale, false, o)
}

// writeScale maps a Scale write onto the parent (apply.Scale: replicas and managedFields) and
// stores the parent; the response is the parent's new Scale. A negative replica count is the
// Scale's 422 (ValidateScale).
func (h *handler) writeScale(live, scale map[string]any, isApply bool, o writeOptions) (Response, []Write, error) {
	ep := h.ep
	if !isApply {
		// Built-in kinds' scale REST validates the Scale (ValidateScale); a custom resource's
		// takes it as it is and validates the resource, whose scale checks say
		// ".spec.replicas: should be a non-negative integer" after its schema's.
		if spec, _ := scale["spec"].(map[string]any); spec != nil && ep.crd == nil {
			if r, ok := spec["replicas"].(int64); ok && r < 0 {
				return Response{}, nil, status.Invalid(status.GroupKind{Group: "autoscaling", Kind: "Scale"}, ep.Name,
					fieldErrorList("spec.replicas", r, "must be greater than or equal to 0"))
			}
		}
		// A Scale carrying a resourceVersion is a precondition on the parent's.
		if rv := metaString(scale, "resourceVersion"); rv != "" && rv != metaString(live, "resourceVersion") {
			return Response{}, nil, status.Conflict(ep.groupResource(), ep.Name, errors.New(versions.OptimisticLockErrorMsg))
		}
	}
	req := apply.ScaleRequest{Parent: live, Scale: scale, Apply: isApply, Manager: o.fieldManager, UserAgent: h.req.UserAgent,
		Now: h.req.Now, ReplicasPaths: h.replicasPaths(), GroupVersion: ep.gvk.GroupVersion().String()}
	if o.force != nil {
		req.Force = *o.force
	}
	res, err := apply.Scale(req)
	if err != nil {
		return Response{}, nil, asStatus(err)
	}
	if isApply && ep.crd != nil && !sameIgnoringManagedFields(res.Object, live) {
		// The field manager of a custom resource's /scale converts the merged Scale to the
		// resource's version and cannot (apiextensions converts custom resources only): every
		// apply that changes the Scale is a 500 with the error as its message, no reason
		// (recorded: crd-widget/apply-scale).
		msg := fmt.Sprintf("failed to convert new object (%s/%s; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1",
			metaString(scale, "namespace"), metaString(scale, "name"))
		return Response{}, nil, &status.Error{Code: 500, Message: msg}
	}
	return h.finishUpdate(live, ownTop(res.Object))
}

// sameIgnoringManagedFields reports whether a and b are equal but for metadata.managedFields.
func sameIgnoringManagedFields(a, b map[string]any) bool {
	strip := func(o map[string]any) map[string]any {
		c := shallow(o)
		md := shallow(metaOf(o))
		delete(md, "managedFields")
		c["metadata"] = md
		return c
	}
	return value.Equal(strip(a), strip(b))
}

var bindingGVK = schema.GroupVersionKind{Version: "v1", Kind: "Binding"}
