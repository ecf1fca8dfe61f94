package cluster

import (
	"context"
	"encoding/json"
	"time"

	"github.com/writepath/writepath/registry"
)

// The service account controller of kube-controller-manager
// (pkg/controller/serviceaccount/serviceaccounts_controller.go): every namespace that is not
// terminating has a ServiceAccount named "default", created when the namespace is and again when
// it is deleted. Without it no Pod could be created: the ServiceAccount admission plugin
// (registry) refuses a Pod whose ServiceAccount does not exist. The controller writes as
// kube-controller-manager, through the request path, like the other controllers here.

// defaultServiceAccountBody is what the controller creates.
const defaultServiceAccountBody = `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}`

// serviceAccountsAfter runs the service account controller for the namespaces a request's
// writes touched: a created or updated Namespace that is Active, and the namespace of a deleted
// "default" ServiceAccount; nothing with Options.NoServiceAccountController. Called with c.mu
// held.
func (c *Cluster) serviceAccountsAfter(ctx context.Context, writes []registry.Write, now time.Time) error {
	if c.noSA {
		return nil
	}
	var namespaces []string
	for _, wr := range writes {
		switch {
		case wr.Resource.Group == "" && wr.Resource.Resource == "namespaces" && !wr.Delete:
			namespaces = append(namespaces, wr.Name)
		case wr.Resource.Group == "" && wr.Resource.Resource == "serviceaccounts" && wr.Delete && wr.Name == "default":
			namespaces = append(namespaces, wr.Namespace)
		}
	}
	for _, ns := range namespaces {
		if err := c.ensureDefaultServiceAccount(ctx, ns, now); err != nil {
			return err
		}
	}
	return nil
}

// ensureDefaultServiceAccount is one sync of the controller for namespace ns: nothing when the
// namespace is gone or terminating or already has its "default" ServiceAccount.
func (c *Cluster) ensureDefaultServiceAccount(ctx context.Context, ns string, now time.Time) error {
	nsObj, err := c.store.Get(ctx, Key{Resource: "namespaces", Name: ns})
	if err != nil {
		return nil // gone (NotFound) or unreadable: the real controller would wait for the next event
	}
	st, _ := nsObj.Value["status"].(map[string]any)
	if phase, _ := st["phase"].(string); phase != "Active" {
		return nil
	}
	if _, err := c.store.Get(ctx, Key{Resource: "serviceaccounts", Namespace: ns, Name: "default"}); err == nil {
		return nil
	}
	c.syncWritten = map[string]string{}
	_, err = c.controllerRequest(ctx, now, "POST", "/api/v1/namespaces/"+ns+"/serviceaccounts", "application/json", json.RawMessage(defaultServiceAccountBody))
	return err
}
