// Command record writes cluster/data/bootstrap.json.gz: the objects a kube-apiserver 1.37 creates by
// itself when it starts on an empty etcd (its post-start hooks: the system namespaces, the
// default/kubernetes Service with its IPAddress and the default ServiceCIDR, the system
// PriorityClasses, API Priority and Fairness' mandatory and suggested configuration, the
// aggregator's local APIServices, the RBAC bootstrap policy, the legacy token tracking
// ConfigMap), as the real server answers them, in the order it stored them (resourceVersion).
// uids, resourceVersions and timestamps are dropped: cluster.Bootstrap gives them its own.
//
// Run against a freshly started control plane (../shared/tools/realcluster/up.sh; nothing
// created yet but what kube-controller-manager makes), from the repository root:
//
//	go run ./testdata/cluster/bootstrap/record [-kubeconfig /tmp/realcluster/kubeconfig]
//
// Its --service-cluster-ip-range (10.96.0.0/24) and --secure-port are not kept: the Service's
// addresses and target port are written as cluster.Bootstrap's placeholders.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/writepath/writepath/testdata/internal/kubeclient"
)

// sources are the lists read and which of their items are the server's own.
var sources = []struct {
	path string
	keep func(obj map[string]any) bool
}{
	{"/api/v1/namespaces", func(o map[string]any) bool {
		return oneOf(name(o), "default", "kube-system", "kube-public", "kube-node-lease")
	}},
	{"/api/v1/namespaces/default/services", func(o map[string]any) bool { return name(o) == "kubernetes" }},
	{"/apis/networking.k8s.io/v1/servicecidrs", func(o map[string]any) bool { return name(o) == "kubernetes" }},
	{"/apis/networking.k8s.io/v1/ipaddresses", func(o map[string]any) bool {
		ref, _ := dig(o, "spec", "parentRef").(map[string]any)
		return ref["namespace"] == "default" && ref["name"] == "kubernetes"
	}},
	{"/apis/scheduling.k8s.io/v1/priorityclasses", func(o map[string]any) bool {
		return oneOf(name(o), "system-node-critical", "system-cluster-critical")
	}},
	{"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", annotated("apf.kubernetes.io/autoupdate-spec")},
	{"/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", annotated("apf.kubernetes.io/autoupdate-spec")},
	{"/apis/apiregistration.k8s.io/v1/apiservices", func(o map[string]any) bool {
		return label(o, "kube-aggregator.kubernetes.io/automanaged") == "onstart"
	}},
	{"/apis/rbac.authorization.k8s.io/v1/clusterroles", rbacDefault},
	{"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", rbacDefault},
	{"/apis/rbac.authorization.k8s.io/v1/roles", rbacDefault},
	{"/apis/rbac.authorization.k8s.io/v1/rolebindings", rbacDefault},
	{"/api/v1/namespaces/kube-system/configmaps", func(o map[string]any) bool {
		return name(o) == "kube-apiserver-legacy-service-account-token-tracking"
	}},
}

func main() {
	kubeconfig := flag.String("kubeconfig", "/tmp/realcluster/kubeconfig", "kubeconfig of the control plane")
	out := flag.String("o", "cluster/data/bootstrap.json.gz", "file to write (gzip-compressed JSON)")
	flag.Parse()
	c, err := kubeclient.New(*kubeconfig)
	if err != nil {
		fail(err)
	}
	type item struct {
		rv  int64
		obj map[string]any
	}
	var items []item
	for _, s := range sources {
		code, list, body, err := c.GetJSON(s.path)
		if err != nil || code != 200 {
			fail(fmt.Errorf("GET %s: %d %v %s", s.path, code, err, body))
		}
		av, _ := list["apiVersion"].(string)
		kind, _ := list["kind"].(string)
		kind = kind[:len(kind)-len("List")]
		l, _ := list["items"].([]any)
		for _, it := range l {
			o, _ := it.(map[string]any)
			if !s.keep(o) {
				continue
			}
			o["apiVersion"], o["kind"] = av, kind
			md := o["metadata"].(map[string]any)
			rv, err := strconv.ParseInt(md["resourceVersion"].(string), 10, 64)
			if err != nil {
				fail(err)
			}
			for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
				delete(md, k)
			}
			items = append(items, item{rv, o})
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].rv < items[j].rv })
	objs := make([]any, len(items))
	for i, it := range items {
		objs[i] = it.obj
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	from := "kube-apiserver " + serverVersion(c) + " (../shared/tools/realcluster, " + time.Now().UTC().Format("2006-01-02") + ")"
	if err := enc.Encode(map[string]any{"recordedFrom": from, "objects": objs}); err != nil {
		fail(err)
	}
	if err := zw.Close(); err != nil {
		fail(err)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("%d objects written to %s\n", len(objs), *out)
}

func serverVersion(c *kubeclient.Client) string {
	_, v, _, _ := c.GetJSON("/version")
	s, _ := v["gitVersion"].(string)
	return s
}

func name(o map[string]any) string { s, _ := dig(o, "metadata", "name").(string); return s }

func label(o map[string]any, k string) string {
	s, _ := dig(o, "metadata", "labels", k).(string)
	return s
}

func annotated(k string) func(map[string]any) bool {
	return func(o map[string]any) bool { _, ok := dig(o, "metadata", "annotations", k).(string); return ok }
}

func rbacDefault(o map[string]any) bool {
	return label(o, "kubernetes.io/bootstrapping") == "rbac-defaults"
}

func dig(o map[string]any, path ...string) any {
	var cur any = o
	for _, p := range path {
		m, _ := cur.(map[string]any)
		cur = m[p]
	}
	return cur
}

func oneOf(s string, l ...string) bool {
	for _, x := range l {
		if s == x {
			return true
		}
	}
	return false
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "record:", err)
	os.Exit(1)
}
