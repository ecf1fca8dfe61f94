package defaults

import "github.com/writepath/writepath/internal/value"

// core/v1: k8s.io/kubernetes/pkg/apis/core/v1/defaults.go of v1.37.2, with the feature gates
// at their 1.37 defaults: ImageVolume on (GA), PodLevelResources on but
// PodLevelResourcesFixDefaulting on too (so SetDefaults_Pod does not derive pod-level requests
// and hugepage limits), H2CContainerProbe off (no HTTPGetAction.protocol), PodLogsQuerySplitStreams
// only concerns PodLogOptions (not a stored kind).

const core = "io.k8s.api.core.v1."

// coreDefaulters are this file's SetDefaults_ functions by OpenAPI name (see builtinDefaulters).
func coreDefaulters() map[string]func(map[string]any) {
	return map[string]func(map[string]any){
		core + "ReplicationController":         defaultReplicationController,
		core + "Volume":                        defaultVolume,
		core + "Container":                     defaultContainer,
		core + "EphemeralContainer":            defaultContainer,
		core + "Service":                       defaultService,
		core + "Pod":                           defaultPod,
		core + "PodStatus":                     defaultPodStatus,
		core + "PodSpec":                       defaultPodSpec,
		core + "Probe":                         defaultProbe,
		core + "SecretVolumeSource":            defaultModeFn(0o644),
		core + "ConfigMapVolumeSource":         defaultModeFn(0o644),
		core + "DownwardAPIVolumeSource":       defaultModeFn(0o644),
		core + "ProjectedVolumeSource":         defaultModeFn(0o644),
		core + "Secret":                        func(m map[string]any) { defaultStr(m, "type", "Opaque") },
		core + "ServiceAccountTokenProjection": func(m map[string]any) { defaultPtr(m, "expirationSeconds", int64(3600)) },
		core + "PersistentVolume":              defaultPersistentVolume,
		core + "PersistentVolumeClaim":         func(m map[string]any) { defaultStr(ensureMap(m, "status"), "phase", "Pending") },
		core + "PersistentVolumeClaimSpec":     func(m map[string]any) { defaultPtr(m, "volumeMode", "Filesystem") },
		core + "Endpoints":                     defaultEndpoints,
		core + "HTTPGetAction":                 defaultHTTPGetAction,
		core + "Namespace":                     defaultNamespace,
		core + "NamespaceStatus":               func(m map[string]any) { defaultStr(m, "phase", "Active") },
		core + "NodeStatus":                    defaultNodeStatus,
		core + "ObjectFieldSelector":           func(m map[string]any) { defaultStr(m, "apiVersion", "v1") },
		core + "LimitRangeItem":                defaultLimitRangeItem,
		core + "ConfigMap":                     defaultConfigMap,
		core + "HostPathVolumeSource":          func(m map[string]any) { defaultPtr(m, "type", "") },
	}
}

func defaultModeFn(mode int64) func(map[string]any) {
	return func(m map[string]any) { defaultPtr(m, "defaultMode", mode) }
}

func defaultReplicationController(m map[string]any) {
	spec := ensureMap(m, "spec")
	labels := dmap(dig(spec, "template", "metadata"), "labels")
	if labels == nil {
		return
	}
	if len(dmap(spec, "selector")) == 0 {
		spec["selector"] = value.Clone(labels)
	}
	meta := ensureMap(m, "metadata")
	if len(dmap(meta, "labels")) == 0 {
		meta["labels"] = value.Clone(labels)
	}
}

// volumeSourceFields are the pointer fields of core/v1 VolumeSource (inlined into Volume).
var volumeSourceFields = []string{"hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore",
	"gitRepo", "secret", "nfs", "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume",
	"cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume",
	"quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO",
	"storageos", "csi", "ephemeral", "image"}

func defaultVolume(m map[string]any) {
	set := false
	for _, f := range volumeSourceFields {
		if has(m, f) {
			set = true
			break
		}
	}
	if !set {
		m["emptyDir"] = map[string]any{}
	}
	// ImageVolume (GA in 1.36, locked on).
	if img := dmap(m, "image"); img != nil && dstr(img, "pullPolicy") == "" {
		setStr(img, "pullPolicy", pullPolicyFor(dstr(img, "reference")))
	}
}

func defaultContainer(m map[string]any) {
	if dstr(m, "imagePullPolicy") == "" {
		setStr(m, "imagePullPolicy", pullPolicyFor(dstr(m, "image")))
	}
	defaultStr(m, "terminationMessagePath", "/dev/termination-log")
	defaultStr(m, "terminationMessagePolicy", "File")
}

func defaultService(m map[string]any) {
	spec := ensureMap(m, "spec")
	defaultStr(spec, "sessionAffinity", "None")
	switch dstr(spec, "sessionAffinity") {
	case "None":
		delete(spec, "sessionAffinityConfig")
	case "ClientIP":
		if !has(dig(spec, "sessionAffinityConfig", "clientIP"), "timeoutSeconds") {
			spec["sessionAffinityConfig"] = map[string]any{"clientIP": map[string]any{"timeoutSeconds": int64(10800)}}
		}
	}
	defaultStr(spec, "type", "ClusterIP")
	for _, p := range maps(spec, "ports") {
		defaultStr(p, "protocol", "TCP")
		switch tp := p["targetPort"].(type) {
		case nil:
			p["targetPort"] = dint(p, "port")
		case string:
			if tp == "" {
				p["targetPort"] = dint(p, "port")
			}
		}
	}
	typ := dstr(spec, "type")
	external := typ == "LoadBalancer" || typ == "NodePort" || (typ == "ClusterIP" && len(dlist(spec, "externalIPs")) > 0)
	if external {
		defaultStr(spec, "externalTrafficPolicy", "Cluster")
	}
	if !has(spec, "internalTrafficPolicy") && (typ == "NodePort" || typ == "LoadBalancer" || typ == "ClusterIP") {
		spec["internalTrafficPolicy"] = "Cluster"
	}
	if typ == "LoadBalancer" {
		defaultPtr(spec, "allocateLoadBalancerNodePorts", true)
		for _, ing := range maps(dig(m, "status", "loadBalancer"), "ingress") {
			if dstr(ing, "ip") != "" && !has(ing, "ipMode") {
				ing["ipMode"] = "VIP"
			}
		}
	}
}

func defaultPod(m map[string]any) {
	spec := ensureMap(m, "spec")
	if n, ok := spec["terminationGracePeriodSeconds"].(int64); ok && n < 0 {
		spec["terminationGracePeriodSeconds"] = int64(1)
	}
	for _, list := range []string{"containers", "initContainers"} {
		for _, c := range maps(spec, list) {
			res := ensureMap(c, "resources")
			if limits := dmap(res, "limits"); limits != nil {
				copyMissing(ensureMap(res, "requests"), limits)
			}
		}
	}
	defaultPtr(spec, "enableServiceLinks", true)
	if dbool(spec, "hostNetwork") {
		for _, list := range []string{"containers", "initContainers"} {
			for _, c := range maps(spec, list) {
				for _, p := range maps(c, "ports") {
					if dint(p, "hostPort") == 0 {
						if cp := dint(p, "containerPort"); cp != 0 {
							p["hostPort"] = cp
						}
					}
				}
			}
		}
	}
}

func defaultPodStatus(m map[string]any) {
	ip := dstr(m, "podIP")
	ips := dlist(m, "podIPs")
	first := ""
	if len(ips) > 0 {
		first = dstr(asMap(ips[0]), "ip")
	}
	switch {
	case ip != "" && len(ips) == 0:
		m["podIPs"] = []any{map[string]any{"ip": ip}}
	case ip == "" && len(ips) > 0:
		setStr(m, "podIP", first)
	case ip != "" && len(ips) > 0 && first != ip:
		m["podIPs"] = []any{map[string]any{"ip": ip}}
	}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func defaultPodSpec(m map[string]any) {
	if dstr(m, "serviceAccountName") == "" {
		setStr(m, "serviceAccountName", dstr(m, "serviceAccount"))
	}
	setStr(m, "serviceAccount", dstr(m, "serviceAccountName"))
	defaultStr(m, "dnsPolicy", "ClusterFirst")
	defaultStr(m, "restartPolicy", "Always")
	defaultPtr(m, "securityContext", map[string]any{})
	defaultPtr(m, "terminationGracePeriodSeconds", int64(30))
	defaultStr(m, "schedulerName", "default-scheduler")
}

func defaultProbe(m map[string]any) {
	defaultNum(m, "timeoutSeconds", 1)
	defaultNum(m, "periodSeconds", 10)
	defaultNum(m, "successThreshold", 1)
	defaultNum(m, "failureThreshold", 3)
}

func defaultPersistentVolume(m map[string]any) {
	defaultStr(ensureMap(m, "status"), "phase", "Pending")
	spec := ensureMap(m, "spec")
	defaultStr(spec, "persistentVolumeReclaimPolicy", "Retain")
	defaultPtr(spec, "volumeMode", "Filesystem")
}

func defaultEndpoints(m map[string]any) {
	for _, ss := range maps(m, "subsets") {
		for _, p := range maps(ss, "ports") {
			defaultStr(p, "protocol", "TCP")
		}
	}
}

func defaultHTTPGetAction(m map[string]any) {
	defaultStr(m, "path", "/")
	defaultStr(m, "scheme", "HTTP")
}

func defaultNamespace(m map[string]any) {
	meta := ensureMap(m, "metadata")
	if name := dstr(meta, "name"); name != "" {
		ensureMap(meta, "labels")["kubernetes.io/metadata.name"] = name
	}
}

func defaultNodeStatus(m map[string]any) {
	if !has(m, "allocatable") && has(m, "capacity") {
		m["allocatable"] = value.Clone(m["capacity"])
	}
}

func defaultLimitRangeItem(m map[string]any) {
	if dstr(m, "type") != "Container" {
		return
	}
	def := ensureMap(m, "default")
	req := ensureMap(m, "defaultRequest")
	copyMissing(def, dmap(m, "max"))
	copyMissing(req, def)
	copyMissing(req, dmap(m, "min"))
}

func defaultConfigMap(m map[string]any) {
	if !has(m, "data") {
		m["data"] = map[string]any{}
	}
}
