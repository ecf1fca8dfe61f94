package cluster

import "context"

// SystemNamespaces returns the namespaces kube-apiserver's system namespaces controller creates
// when it starts: default (where kubectl puts objects that name no namespace), kube-system,
// kube-public and kube-node-lease.
func SystemNamespaces() []string {
	return []string{"default", "kube-system", "kube-public", "kube-node-lease"}
}

// CreateSystemNamespaces creates those of SystemNamespaces that do not exist yet (a store shared
// with another server may hold them), through the API as admin.
func (c *Cluster) CreateSystemNamespaces(ctx context.Context) error {
	for _, ns := range SystemNamespaces() {
		if err := c.ensureNamespace(ctx, ns); err != nil {
			return err
		}
	}
	return nil
}
