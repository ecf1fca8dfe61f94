package registry

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/gc"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
	"github.com/writepath/writepath/status"
)

// deleteOptions reads metav1.DeleteOptions from the body, or when there is none from the query
// (handlers/delete.go): gracePeriodSeconds, propagationPolicy, orphanDependents, dryRun.
func (h *handler) deleteOptions() (gc.DeleteOptions, error) {
	var o gc.DeleteOptions
	if err := limitBody(h.req.Body); err != nil {
		return o, err
	}
	if len(h.req.Body) > 0 {
		doc, err := codec.Options{AllowDuplicates: true, MaxBytes: -1}.Decode(h.req.Body)
		if err != nil {
			return o, status.BadRequest("couldn't get version/kind; json parse error: " + parseErrorText(err))
		}
		js, err := codec.EncodeJSON(doc.Value)
		if err != nil {
			return o, status.BadRequest(err.Error())
		}
		if err := json.Unmarshal(js, &o); err != nil {
			return o, status.BadRequest(err.Error())
		}
	} else {
		q := h.query
		if v := q.Get("gracePeriodSeconds"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return o, status.BadRequest(fmt.Sprintf("strconv.ParseInt: parsing %q: invalid syntax", v))
			}
			o.GracePeriodSeconds = &n
		}
		if v, ok := q["propagationPolicy"]; ok && len(v) > 0 {
			p := gc.Propagation(v[0])
			o.PropagationPolicy = &p
		}
		if v, ok := q["orphanDependents"]; ok && len(v) > 0 {
			b := queryBool(v)
			o.OrphanDependents = &b
		}
		o.DryRun = q["dryRun"]
	}
	ep := h.ep
	if ep.crd != nil {
		kind := gc.Kind{Group: ep.gvk.Group, Version: ep.gvk.Version, Kind: ep.gvk.Kind, Resource: ep.Resource.Resource,
			Namespaced: ep.namespaced}
		o.Kinds = func(apiVersion, k string) (gc.Kind, bool) {
			if k == kind.Kind {
				return kind, true
			}
			gvk, err := schema.FromAPIVersionAndKind(apiVersion, k)
			if err != nil || gvk.APIVersion() != apiVersion {
				return gc.Kind{}, false
			}
			return gc.Builtin(gvk)
		}
	}
	h.dryRun = len(o.DryRun) > 0
	o.Now = h.req.Now
	return o, nil
}

// delete is DELETE on an object (handlers/delete.go, store.Delete): gc.Delete decides graceful
// deletion, the garbage collector's finalizers, preconditions and whether the object goes now.
func (h *handler) delete() (Response, []Write, error) {
	ep := h.ep
	o, err := h.deleteOptions()
	if err != nil {
		return Response{}, nil, err
	}
	if err := o.Validate(); err != nil {
		return Response{}, nil, asStatus(err)
	}
	h.warnOrphanedJobPods(o)
	live, err := h.live()
	if err != nil {
		return Response{}, nil, err
	}
	if live == nil {
		return Response{}, nil, status.NotFound(ep.groupResource(), ep.Name)
	}
	if ep.isCRDResource() && metaOf(live)["deletionTimestamp"] == nil {
		return h.deleteCRD(live, o)
	}
	return h.deleteOne(live, o)
}

// warnOrphanedJobPods is the Job REST storage's warning for a DELETE (one Job or a collection)
// that names no propagation policy, whose default for batch/v1 Jobs orphans their Pods; it is
// given before the delete runs, so a Job not found gets it too.
func (h *handler) warnOrphanedJobPods(o gc.DeleteOptions) {
	ep := h.ep
	if ep.crd != nil || ep.gvk.Group != "batch" || ep.gvk.Kind != "Job" || ep.Subresource != "" {
		return
	}
	if o.PropagationPolicy == nil && o.OrphanDependents == nil && ep.strategy.GCPolicy == schema.GCOrphan {
		h.warnings = append(h.warnings, "child pods are preserved by default when jobs are deleted; "+
			"set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning")
	}
}

func (h *handler) deleteOne(live map[string]any, o gc.DeleteOptions) (Response, []Write, error) {
	ep := h.ep
	if ep.Resource.Group == "" && ep.Resource.Resource == "namespaces" && !h.pluginDisabled("NamespaceLifecycle") {
		// NamespaceLifecycle's Admit on a delete: the immortal namespaces.
		switch ep.Name {
		case "default", "kube-system", "kube-public":
			return Response{}, nil, status.Forbidden(ep.groupResource(), ep.Name, fmt.Errorf("this namespace may not be deleted"))
		}
	}
	res, err := gc.Delete(live, o)
	if err != nil {
		return Response{}, nil, asStatus(err)
	}
	if err := h.validate(admission.Delete, nil, live, metaString(live, "name")); err != nil {
		return Response{}, nil, err
	}
	var writes []Write
	body := res.Response
	if !h.dryRun {
		if res.Written != nil {
			c := ownTop(res.Written)
			ownMeta(c)["resourceVersion"] = h.w.NextResourceVersion()
			writes = append(writes, Write{Resource: ep.Resource, Namespace: metaString(c, "namespace"), Name: metaString(c, "name"), Object: c})
		}
		switch {
		case res.Removed:
			// The removal has a revision of its own (etcd's delete), which the removed object
			// carries, in the answer too when it is the object (store.Delete decodes the
			// previous value at the delete's revision).
			last := live
			if len(writes) > 0 {
				last = writes[0].Object
			}
			last = ownTop(last)
			rv := h.w.NextResourceVersion()
			ownMeta(last)["resourceVersion"] = rv
			writes = append(writes, Write{Delete: true, Resource: ep.Resource, Namespace: metaString(live, "namespace"), Name: metaString(live, "name"), Object: last})
			if body != nil && body["kind"] != "Status" {
				body = ownTop(body)
				ownMeta(body)["resourceVersion"] = rv
			}
			if h.isServiceResource() {
				// The Service store's AfterDelete releases the deleted Service's cluster IPs.
				released, err := h.releaseService(last)
				if err != nil {
					return Response{}, nil, err
				}
				writes = append(writes, released...)
			}
		case res.Changed:
			c := ownTop(res.Object)
			rv := h.w.NextResourceVersion()
			ownMeta(c)["resourceVersion"] = rv
			writes = append(writes, Write{Resource: ep.Resource, Namespace: metaString(c, "namespace"), Name: metaString(c, "name"), Object: c})
			if body != nil && body["kind"] != "Status" {
				body = c
			}
		}
	}
	code := res.Code
	if code == 0 {
		code = 200
	}
	resp, err := h.respond(code, body)
	return resp, writes, err
}

// deleteCollection is DELETE on a collection (store.DeleteCollection): every listed object is
// deleted with the same options; the response is the list as it was.
func (h *handler) deleteCollection() (Response, []Write, error) {
	ep := h.ep
	o, err := h.deleteOptions()
	if err != nil {
		return Response{}, nil, err
	}
	h.warnOrphanedJobPods(o)
	objs, err := h.w.List(h.ctx, ep.Resource, ep.Namespace)
	if err != nil {
		return Response{}, nil, worldError(err, "List")
	}
	items := make([]map[string]any, 0, len(objs))
	for _, obj := range objs {
		c, err := h.toRequestVersion(obj)
		if err != nil {
			return Response{}, nil, err
		}
		items = append(items, c)
	}
	sortObjects(items)
	sel, err := h.selection()
	if err != nil {
		return Response{}, nil, err
	}
	selected := items[:0:0]
	for _, it := range items {
		if sel.Matches(it) {
			selected = append(selected, it)
		}
	}
	items = selected
	// The list answered is the one the store listed, at its revision (a World without a
	// Pager has none to give).
	listRV := ""
	if p, ok := h.w.(Pager); ok {
		page, err := p.ListPage(h.ctx, ep.Resource, ep.Namespace, ListOptions{Everything: true})
		if err != nil {
			return Response{}, nil, worldError(err, "ListPage")
		}
		listRV = page.ResourceVersion
	}
	var writes []Write
	for _, it := range items {
		_, w, err := h.deleteOne(it, o)
		if err != nil {
			return Response{}, nil, err
		}
		writes = append(writes, w...)
	}
	list := h.listOf(items)
	if md, ok := list["metadata"].(map[string]any); ok && listRV != "" {
		md["resourceVersion"] = listRV
	}
	resp, err := h.respond(200, list)
	return resp, writes, err
}

// legacyBinding answers POST namespaces/NS/bindings for the Pod name as binding does.
func (h *handler) legacyBinding(name string) (Response, []Write, error) {
	ep, err := resolve(h.ctx, h.w, Target{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Namespace: h.ep.Namespace, Name: name, Subresource: "binding"})
	if err != nil {
		return Response{}, nil, err
	}
	h.ep = ep
	return h.binding()
}

// binding is POST pods/NAME/binding (pkg/registry/core/pod/storage BindingREST): the pod gets
// spec.nodeName, the Binding's annotations and labels (bindingMetadata) and the PodScheduled
// condition; the answer is a 201 Success Status.
func (h *handler) binding() (Response, []Write, error) {
	ep := h.ep
	if ep.builtin == nil || ep.Resource.Resource != "pods" {
		return Response{}, nil, status.RouteError(405, "405: Method Not Allowed")
	}
	format, err := h.bodyFormat()
	if err != nil {
		return Response{}, nil, err
	}
	if err := limitBody(h.req.Body); err != nil {
		return Response{}, nil, err
	}
	if _, err := h.parseWriteOptions("CreateOptions", false); err != nil {
		return Response{}, nil, err
	}
	d, err := h.readBody(format, bindingGVK, schema.FieldValidationIgnore)
	if err != nil {
		return Response{}, nil, err
	}
	// Mutating admission of the Binding: PodTopologyLabels (podtopology.go).
	if err := h.bindingTopologyLabels(d.obj); err != nil {
		return Response{}, nil, err
	}
	if metaString(d.obj, "name") != ep.Name {
		return Response{}, nil, status.BadRequest("name in URL does not match name in Binding object")
	}
	if errs := validation.ValidatePodBinding(d.obj); len(errs) > 0 {
		return Response{}, nil, status.FromError(errs.ToAggregate())
	}
	target, _ := d.obj["target"].(map[string]any)
	node, _ := target["name"].(string)
	live, err := h.live()
	if err != nil {
		return Response{}, nil, err
	}
	if live == nil {
		return Response{}, nil, status.NotFound(ep.groupResource(), ep.Name)
	}
	spec, _ := live["spec"].(map[string]any)
	if n, _ := spec["nodeName"].(string); n != "" {
		return Response{}, nil, status.Conflict(status.GroupResource{Resource: "pods/binding"}, ep.Name, fmt.Errorf("pod %s is already assigned to node %q", ep.Name, n))
	}
	obj, err := value.DeepCopyMap(live)
	if err != nil {
		return Response{}, nil, &internalError{err: err}
	}
	sp, _ := obj["spec"].(map[string]any)
	if sp == nil {
		sp = map[string]any{}
		obj["spec"] = sp
	}
	sp["nodeName"] = node
	bindingMetadata(obj, d.obj)
	st, _ := obj["status"].(map[string]any)
	if st == nil {
		st = map[string]any{}
		obj["status"] = st
	}
	conds, _ := st["conditions"].([]any)
	found := false
	for _, c := range conds {
		if cm, ok := c.(map[string]any); ok && cm["type"] == "PodScheduled" {
			cm["status"] = "True"
			found = true
		}
	}
	if !found {
		conds = append(conds, map[string]any{"type": "PodScheduled", "status": "True", "lastProbeTime": nil,
			"lastTransitionTime": h.req.Now.UTC().Format("2006-01-02T15:04:05Z")})
	}
	st["conditions"] = conds
	var writes []Write
	if !h.dryRun {
		ownMeta(obj)["resourceVersion"] = h.w.NextResourceVersion()
		writes = append(writes, Write{Resource: ep.Resource, Namespace: ep.Namespace, Name: ep.Name, Object: obj})
	}
	resp, err := h.respond(201, map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Success", "code": int64(201)})
	return resp, writes, err
}

// bindingMetadata is setPodNodeAndMetadata's metadata: the Binding's annotations merged into the
// Pod's (the legacy init container annotations then dropped) and, with PodTopologyLabelsAdmission
// on (1.37's default), its labels over the Pod's. pod is the handler's own copy.
func bindingMetadata(pod, binding map[string]any) {
	md := ownMeta(pod)
	bmd := metaOf(binding)
	ann, _ := md["annotations"].(map[string]any)
	ba, _ := bmd["annotations"].(map[string]any)
	merged := overlay(ann, ba)
	for _, k := range validation.InitContainerAnnotations {
		delete(merged, k)
	}
	if len(merged) > 0 {
		md["annotations"] = merged
	} else {
		delete(md, "annotations")
	}
	bl, _ := bmd["labels"].(map[string]any)
	if len(bl) == 0 {
		return
	}
	l, _ := md["labels"].(map[string]any)
	md["labels"] = overlay(l, bl)
}

// overlay is a fresh map of base's entries and over's, over's winning.
func overlay(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}
