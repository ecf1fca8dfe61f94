package defaults

import "strings"

// apiextensions.k8s.io/v1 (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/defaults.go)
// and apiregistration.k8s.io/v1 (k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/defaults.go)
// of v0.37.2, served by the apiextensions-apiserver and kube-aggregator of a 1.37 apiserver.

// extDefaulters are this file's SetDefaults_ functions by OpenAPI name (see builtinDefaulters).
func extDefaulters() map[string]func(map[string]any) {
	const ext = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
	return map[string]func(map[string]any){
		ext + "CustomResourceDefinition":                                      defaultCRD,
		ext + "CustomResourceDefinitionSpec":                                  defaultCRDSpec,
		ext + "ServiceReference":                                              func(m map[string]any) { defaultPtr(m, "port", int64(443)) },
		"io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.ServiceReference": func(m map[string]any) { defaultPtr(m, "port", int64(443)) },
	}
}

func defaultCRD(m map[string]any) {
	defaultCRDSpec(ensureMap(m, "spec"))
	st := ensureMap(m, "status")
	if len(dlist(st, "storedVersions")) == 0 {
		for _, v := range maps(dmap(m, "spec"), "versions") {
			if dbool(v, "storage") {
				st["storedVersions"] = append(dlistCopy(st, "storedVersions"), dstr(v, "name"))
				break
			}
		}
	}
}

func defaultCRDSpec(m map[string]any) {
	names := ensureMap(m, "names")
	if dstr(names, "singular") == "" {
		setStr(names, "singular", strings.ToLower(dstr(names, "kind")))
	}
	if dstr(names, "listKind") == "" && dstr(names, "kind") != "" {
		names["listKind"] = dstr(names, "kind") + "List"
	}
	defaultPtr(m, "conversion", map[string]any{"strategy": "None"})
}
