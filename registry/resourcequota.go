package registry

import (
	"errors"
	"fmt"
	"sort"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/controllers/resourcequota"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// The ResourceQuota admission plugin (k8s.io/apiserver pkg/admission/plugin/resourcequota),
// the last validating plugin of kube-apiserver 1.37: a create or update of a namespaced
// object is checked against the ResourceQuotas of its namespace (controllers/resourcequota.Admit)
// and, when it charges them, the quotas' status.used is written during admission, through the
// apiserver's loopback client (PUT .../resourcequotas/NAME/status as system:apiserver, field
// manager kube-apiserver), before the object is stored. Those writes stay when the request
// then fails in storage (a create of a name that exists): the real plugin has updated the
// quota already, and the resource quota controller corrects it on its next sync.

var resourceQuotasResource = schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}

// loopbackUser is kube-apiserver's loopback client's identity (its privileged loopback token).
var loopbackUser = User{Name: "system:apiserver", Groups: []string{"system:authenticated", "system:masters"}}

const loopbackAgent = "kube-apiserver/v1.37.2 (linux/amd64) kubernetes/writepath"

// resourceQuota runs the plugin on a create or update; obj is the object as validated, old the
// stored one. The quota writes it makes are kept in h.quotaWrites.
func (h *handler) resourceQuota(op admission.Operation, obj, old map[string]any) error {
	if op != admission.Create && op != admission.Update || obj == nil || !h.ep.namespaced || h.pluginDisabled("ResourceQuota") {
		return nil
	}
	ns := h.ep.Namespace
	if ns == "" {
		ns = metaString(obj, "namespace")
	}
	if ns == "" {
		return nil
	}
	qop := resourcequota.Create
	if op == admission.Update {
		qop = resourcequota.Update
	}
	attrs := resourcequota.Attributes{Group: h.ep.Resource.Group, Resource: h.ep.Resource.Resource, Subresource: h.ep.Subresource,
		Namespace: ns, Operation: qop, Object: obj, OldObject: old, DryRun: h.dryRun}
	if resourcequota.Ignored(attrs.Group, attrs.Resource) {
		return nil
	}
	quotas, err := h.w.List(h.ctx, resourceQuotasResource, ns)
	if err != nil {
		return worldError(err, "List(resourcequotas)")
	}
	if len(quotas) == 0 {
		return nil
	}
	sort.Slice(quotas, func(i, j int) bool { return metaString(quotas[i], "name") < metaString(quotas[j], "name") })
	charged, err := resourcequota.Admit(quotas, attrs, h.req.Now)
	if msg, ok := resourcequota.IsForbidden(err); ok {
		return status.Forbidden(h.ep.groupResource(), forbiddenName(obj), errors.New(msg))
	}
	if err != nil {
		return status.FromError(err)
	}
	for _, q := range charged {
		if err := h.writeQuotaStatus(q); err != nil {
			return err
		}
	}
	return nil
}

// forbiddenName is the name admission.NewForbidden puts in its message: the object's, its
// generateName before one is generated, else "Unknown".
func forbiddenName(obj map[string]any) string {
	if n := metaString(obj, "name"); n != "" {
		return n
	}
	if g := metaString(obj, "generateName"); g != "" {
		return g
	}
	return "Unknown"
}

// writeQuotaStatus is the plugin's UpdateQuotaStatus: the quota with its new status.used PUT
// to its /status through the request path, as the loopback client sends it.
func (h *handler) writeQuotaStatus(q map[string]any) error {
	body, err := codec.EncodeJSON(q)
	if err != nil {
		return status.InternalError(err)
	}
	path := fmt.Sprintf("/api/v1/namespaces/%s/resourcequotas/%s/status", metaString(q, "namespace"), metaString(q, "name"))
	resp, writes, err := Handle(h.ctx, h.w, Request{Method: "PUT", Path: path, Body: body, User: loopbackUser,
		UserAgent: loopbackAgent, Now: h.req.Now, ObjectOnly: true})
	if err != nil {
		return &internalError{err: err}
	}
	if resp.Code >= 300 {
		// The update failed (the plugin retries conflicts on a fresh read; here the read is
		// the latest): the client gets the update's error.
		e := &status.Error{Code: int32(resp.Code)}
		if r, ok := resp.Object["reason"].(string); ok {
			e.Reason = status.Reason(r)
		}
		e.Message, _ = resp.Object["message"].(string)
		return e
	}
	h.quotaWrites = append(h.quotaWrites, writes...)
	return nil
}
