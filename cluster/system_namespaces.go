package cluster

// SystemNamespaces returns the namespaces kube-apiserver's system namespaces controller creates
// when it starts: default (where kubectl puts objects that name no namespace), kube-system,
// kube-public and kube-node-lease.
func SystemNamespaces() []string {
	return []string{"default", "kube-system", "kube-public", "kube-node-lease"}
}
