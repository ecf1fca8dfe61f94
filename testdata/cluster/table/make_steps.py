#!/usr/bin/env python3
"""Writes steps.json: the requests record.py sends to the real apiserver and the cluster
package's TestTableRecorded replays against writepath (in-process, fake clock)."""
import json

NS = "tbl"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
POM = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
POML = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
POM_PB = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
POML_PB = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"

steps = []


def step(name, method, path, accept="", body=None, compare=True, sleep=0, content_type=""):
    s = {"name": name, "method": method, "path": path}
    if content_type:
        s["contentType"] = content_type
    if accept:
        s["accept"] = accept
    if body is not None:
        s["body"] = body
    if not compare:
        s["compare"] = False
    if sleep:
        s["sleep"] = sleep
    steps.append(s)


def meta(name, ns=NS, **extra):
    m = {"name": name}
    if ns:
        m["namespace"] = ns
    m.update(extra)
    return m


tmpl = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}, {"name": "side", "image": "busybox"}]}}

# Objects, each created once (not compared: their bodies are the registry's, compared elsewhere).
creates = [
    ("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}),
    (f"/api/v1/namespaces/{NS}/serviceaccounts", {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta("default")}),
    (f"/api/v1/namespaces/{NS}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("cm", labels={"app": "web"}), "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}}),
    (f"/api/v1/namespaces/{NS}/secrets", {"apiVersion": "v1", "kind": "Secret", "metadata": meta("s"), "type": "Opaque", "data": {"k": "dg=="}}),
    (f"/api/v1/namespaces/{NS}/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": meta("web", labels={"app": "web"}), "spec": {**tmpl["spec"], "readinessGates": [{"conditionType": "example.com/ready"}]}}),
    (f"/api/v1/namespaces/{NS}/services", {"apiVersion": "v1", "kind": "Service", "metadata": meta("headless"), "spec": {"clusterIP": "None", "selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": 8080}, {"name": "udp", "port": 53, "protocol": "UDP"}]}}),
    (f"/api/v1/namespaces/{NS}/services", {"apiVersion": "v1", "kind": "Service", "metadata": meta("ext"), "spec": {"type": "ExternalName", "externalName": "example.com"}}),
    (f"/api/v1/namespaces/{NS}/endpoints", {"apiVersion": "v1", "kind": "Endpoints", "metadata": meta("headless"), "subsets": [{"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [{"name": "a", "port": 8080}, {"name": "b", "port": 9090}]}]}),
    (f"/apis/discovery.k8s.io/v1/namespaces/{NS}/endpointslices", {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": meta("headless-x"), "addressType": "IPv4", "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}], "endpoints": [{"addresses": ["10.0.0.1"]}, {"addresses": ["10.0.0.2"]}]}),
    (f"/apis/apps/v1/namespaces/{NS}/deployments", {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta("web"), "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web"}}, "template": tmpl}}),
    (f"/apis/apps/v1/namespaces/{NS}/statefulsets", {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta("db"), "spec": {"replicas": 0, "serviceName": "headless", "selector": {"matchLabels": {"app": "db"}}, "template": {"metadata": {"labels": {"app": "db"}}, "spec": tmpl["spec"]}}}),
    (f"/apis/apps/v1/namespaces/{NS}/daemonsets", {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta("agent"), "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["b", "agent"]}]}, "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {**tmpl["spec"], "nodeSelector": {"disk": "ssd"}}}}}),
    (f"/apis/batch/v1/namespaces/{NS}/jobs", {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta("once"), "spec": {"suspend": True, "completions": 3, "parallelism": 2, "template": {"spec": {**tmpl["spec"], "restartPolicy": "Never"}}}}),
    (f"/apis/batch/v1/namespaces/{NS}/cronjobs", {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta("nightly"), "spec": {"schedule": "0 3 * * *", "timeZone": "Etc/UTC", "suspend": True, "jobTemplate": {"spec": {"template": {"spec": {**tmpl["spec"], "restartPolicy": "OnFailure"}}}}}}),
    (f"/api/v1/namespaces/{NS}/persistentvolumeclaims", {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta("data"), "spec": {"accessModes": ["ReadWriteOnce", "ReadOnlyMany"], "storageClassName": "fast", "resources": {"requests": {"storage": "1Gi"}}}}),
    ("/api/v1/persistentvolumes", {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta("pv1", ns=None), "spec": {"capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteMany"], "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "fast", "hostPath": {"path": "/tmp/pv1"}, "claimRef": {"namespace": NS, "name": "data"}}}),
    ("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": meta("n1", ns=None, labels={"node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "worker"}), "spec": {"unschedulable": True}}),
    (f"/api/v1/namespaces/{NS}/events", {"apiVersion": "v1", "kind": "Event", "metadata": meta("web.1"), "involvedObject": {"kind": "Pod", "name": "web", "namespace": NS, "fieldPath": "spec.containers{c}"}, "reason": "Pulled", "message": " pulled image \n", "type": "Normal", "count": 3, "source": {"component": "kubelet", "host": "n1"}, "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:05:00Z"}),
    (f"/apis/rbac.authorization.k8s.io/v1/namespaces/{NS}/roles", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta("reader"), "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}),
    (f"/apis/rbac.authorization.k8s.io/v1/namespaces/{NS}/rolebindings", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": meta("read"), "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"}, "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}, {"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io"}, {"kind": "ServiceAccount", "name": "default", "namespace": NS}]}),
    (f"/apis/networking.k8s.io/v1/namespaces/{NS}/ingresses", {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta("web"), "spec": {"ingressClassName": "nginx", "tls": [{"hosts": ["a.example.com"]}], "rules": [{"host": "a.example.com"}, {"host": "b.example.com"}]}}),
    (f"/apis/networking.k8s.io/v1/namespaces/{NS}/networkpolicies", {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": meta("deny"), "spec": {"podSelector": {"matchLabels": {"app": "web"}}}}),
    (f"/apis/policy/v1/namespaces/{NS}/poddisruptionbudgets", {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta("web"), "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}}}),
    (f"/apis/autoscaling/v2/namespaces/{NS}/horizontalpodautoscalers", {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": meta("web"), "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 1, "maxReplicas": 5, "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}]}}),
    (f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases", {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta("lock"), "spec": {"holderIdentity": "me"}}),
    ("/apis/storage.k8s.io/v1/storageclasses", {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta("fast", ns=None, annotations={"storageclass.kubernetes.io/is-default-class": "true"}), "provisioner": "example.com/fast", "allowVolumeExpansion": True}),
    ("/apis/scheduling.k8s.io/v1/priorityclasses", {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": meta("high", ns=None), "value": 1000, "description": "x"}),
    ("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "widgets.example.com"}, "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"}, "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}, "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}, "additionalPrinterColumns": [
        {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
        {"name": "Ratio", "type": "number", "jsonPath": ".spec.ratio", "priority": 1},
        {"name": "On", "type": "boolean", "jsonPath": ".spec.on"},
        {"name": "Color", "type": "string", "jsonPath": ".spec.color", "description": "the color"},
        {"name": "Tags", "type": "string", "jsonPath": ".spec.tags"},
        {"name": "Since", "type": "date", "jsonPath": ".spec.since"},
        {"name": "Missing", "type": "string", "jsonPath": ".spec.nothing"},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]}]}}),
    ("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "gadgets.example.com"}, "spec": {"group": "example.com", "scope": "Cluster", "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"}, "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}),
]
# Cluster-scoped objects carry fixture=tbl and their lists select it: others may share the
# real control plane (their CRDs, PVs and nodes stay out of these tables).
def label_cluster_scoped(body):
    md = body["metadata"]
    if "namespace" not in md and body["kind"] != "Namespace":
        md.setdefault("labels", {})["fixture"] = "tbl"


for _, body in creates:
    label_cluster_scoped(body)
for i, (path, body) in enumerate(creates):
    step(f"create/{body['kind'].lower()}/{body['metadata']['name']}", "POST", path, body=body, compare=False, sleep=1 if i % 5 == 4 else 0)

# Custom resources, once the CRDs are established.
step("wait/crd", "GET", "/apis/example.com/v1", compare=False, sleep=3)
step("create/widget", "POST", f"/apis/example.com/v1/namespaces/{NS}/widgets", body={"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta("w1"), "spec": {"size": 3.0, "ratio": 2, "on": True, "color": "red", "tags": ["a", "b"], "since": "2026-01-01T00:00:00Z", "replicas": 2}, "status": {"replicas": 1}}, compare=False)
step("create/gadget", "POST", "/apis/example.com/v1/gadgets", body={"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"}}, compare=False, sleep=2)

# More kinds, and statuses written as their controllers or kubelets would (merge patches of
# the status subresource), so that the printers' status logic is exercised.
more = [
    ("/apis/networking.k8s.io/v1/ingressclasses", {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": meta("nginx", ns=None, annotations={"ingressclass.kubernetes.io/is-default-class": "true"}), "spec": {"controller": "example.com/ingress", "parameters": {"apiGroup": "k8s.example.com", "kind": "Params", "name": "p", "scope": "Cluster"}}}),
    ("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": meta("tbl-view", ns=None), "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}, "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": NS}]}),
    ("/apis/storage.k8s.io/v1/csidrivers", {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": meta("tbl.csi.example.com", ns=None), "spec": {"attachRequired": False, "podInfoOnMount": True, "volumeLifecycleModes": ["Persistent", "Ephemeral"], "tokenRequests": [{"audience": "a"}, {"audience": "b"}]}}),
    ("/apis/node.k8s.io/v1/runtimeclasses", {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": meta("tbl-gvisor", ns=None), "handler": "runsc"}),
    ("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration", "metadata": meta("tbl-hooks", ns=None), "webhooks": []}),
    ("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": meta("tbl-policy", ns=None), "spec": {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}, "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]}, "validations": [{"expression": "true"}, {"expression": "1 == 1"}]}}),
    ("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": meta("tbl-binding", ns=None), "spec": {"policyName": "tbl-policy", "validationActions": ["Audit"], "paramRef": {"name": "cm", "namespace": NS, "parameterNotFoundAction": "Allow"}}}),
    (f"/apis/storage.k8s.io/v1/namespaces/{NS}/csistoragecapacities", {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity", "metadata": meta("cap"), "storageClassName": "fast", "capacity": "10Gi"}),
    (f"/api/v1/namespaces/{NS}/limitranges", {"apiVersion": "v1", "kind": "LimitRange", "metadata": meta("lr"), "spec": {"limits": [{"type": "PersistentVolumeClaim", "max": {"storage": "2Gi"}}]}}),
    ("/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration", "metadata": meta("tbl-pl", ns=None), "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Queue", "queuing": {"queues": 8, "handSize": 2, "queueLengthLimit": 10}}}}}),
    ("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": meta("tbl-fs", ns=None), "spec": {"priorityLevelConfiguration": {"name": "tbl-pl"}, "matchingPrecedence": 500, "distinguisherMethod": {"type": "ByUser"}, "rules": [{"subjects": [{"kind": "User", "user": {"name": "alice"}}], "resourceRules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "namespaces": ["*"]}]}]}}),
]
for path, body in more:
    label_cluster_scoped(body)
    step(f"create/{body['kind'].lower()}/{body['metadata']['name']}", "POST", path, body=body, compare=False)
MP = "application/merge-patch+json"
step("status/pod", "PATCH", f"/api/v1/namespaces/{NS}/pods/web/status", content_type=MP, compare=False, body={"status": {
    "phase": "Running", "podIP": "10.1.2.3", "podIPs": [{"ip": "10.1.2.3"}], "hostIP": "192.168.0.1", "hostIPs": [{"ip": "192.168.0.1"}], "startTime": "2026-01-01T00:00:00Z",
    "conditions": [{"type": "Ready", "status": "False"}, {"type": "example.com/ready", "status": "True"}],
    "containerStatuses": [
        {"name": "c", "image": "nginx:1.27", "imageID": "", "ready": False, "restartCount": 3, "started": False, "state": {"waiting": {"reason": "CrashLoopBackOff"}},
         "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:10:00Z"}}},
        {"name": "side", "image": "busybox", "imageID": "", "ready": True, "restartCount": 0, "started": True, "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}})
step("status/node", "PATCH", "/api/v1/nodes/n1/status", content_type=MP, compare=False, body={"status": {
    "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ok", "lastHeartbeatTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
    "addresses": [{"type": "InternalIP", "address": "192.168.0.1"}, {"type": "Hostname", "address": "n1"}],
    "nodeInfo": {"machineID": "m", "systemUUID": "s", "bootID": "b", "kernelVersion": "6.1.0", "osImage": "Debian GNU/Linux 12", "containerRuntimeVersion": "containerd://2.0.0",
                 "kubeletVersion": "v1.37.2", "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"}}})
step("status/job", "PATCH", f"/apis/batch/v1/namespaces/{NS}/jobs/once/status", content_type=MP, compare=False, body={"status": {"startTime": "2026-01-01T00:00:00Z"}})
step("status/cronjob", "PATCH", f"/apis/batch/v1/namespaces/{NS}/cronjobs/nightly/status", content_type=MP, compare=False, body={"status": {"lastScheduleTime": "2026-01-01T03:00:00Z"}})
step("status/hpa", "PATCH", f"/apis/autoscaling/v2/namespaces/{NS}/horizontalpodautoscalers/web/status", content_type=MP, compare=False, body={"status": {
    "currentReplicas": 2, "desiredReplicas": 2, "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 42, "averageValue": "100m"}}}]}}, sleep=1)

# Pods in other states, Services with node ports and a load balancer, a finished Job.
pods = [
    ("init", {"initContainers": [{"name": "i1", "image": "busybox"}, {"name": "sidecar", "image": "envoy", "restartPolicy": "Always"}], "containers": [{"name": "c", "image": "nginx"}]},
     {"phase": "Pending", "conditions": [{"type": "Initialized", "status": "False"}],
      "initContainerStatuses": [{"name": "i1", "image": "busybox", "imageID": "", "ready": False, "restartCount": 0, "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:00:01Z"}}},
                                {"name": "sidecar", "image": "envoy", "imageID": "", "ready": True, "started": True, "restartCount": 2, "state": {"running": {"startedAt": "2026-01-01T00:00:02Z"}}, "lastState": {"terminated": {"exitCode": 1, "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:00:02Z"}}}],
      "containerStatuses": [{"name": "c", "image": "nginx", "imageID": "", "ready": False, "restartCount": 0, "state": {"waiting": {"reason": "PodInitializing"}}}]}),
    ("initfail", {"initContainers": [{"name": "i1", "image": "busybox"}], "containers": [{"name": "c", "image": "nginx"}]},
     {"phase": "Pending", "initContainerStatuses": [{"name": "i1", "image": "busybox", "imageID": "", "ready": False, "restartCount": 4, "state": {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:00:01Z"}}}],
      "containerStatuses": [{"name": "c", "image": "nginx", "imageID": "", "ready": False, "restartCount": 0, "state": {"waiting": {"reason": "PodInitializing"}}}]}),
    ("done", {"restartPolicy": "Never", "containers": [{"name": "c", "image": "nginx"}]},
     {"phase": "Succeeded", "containerStatuses": [{"name": "c", "image": "nginx", "imageID": "", "ready": False, "restartCount": 0, "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:00:05Z"}}}]}),
    ("sig", {"containers": [{"name": "c", "image": "nginx"}, {"name": "d", "image": "nginx"}]},
     {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
      "containerStatuses": [{"name": "c", "image": "nginx", "imageID": "", "ready": False, "restartCount": 1, "state": {"terminated": {"exitCode": 137, "signal": 9, "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:00:05Z"}}},
                            {"name": "d", "image": "nginx", "imageID": "", "ready": True, "restartCount": 0, "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}),
]
for name, spec, st in pods:
    step(f"create/pod/{name}", "POST", f"/api/v1/namespaces/{NS}/pods", body={"apiVersion": "v1", "kind": "Pod", "metadata": meta(name), "spec": spec}, compare=False)
    step(f"status/pod/{name}", "PATCH", f"/api/v1/namespaces/{NS}/pods/{name}/status", content_type=MP, body={"status": st}, compare=False)
step("create/service/np", "POST", f"/api/v1/namespaces/{NS}/services", compare=False, body={"apiVersion": "v1", "kind": "Service", "metadata": meta("np"),
     "spec": {"type": "NodePort", "selector": {"app": "web"}, "ports": [{"port": 80, "nodePort": 30080}]}})
step("create/service/lb", "POST", f"/api/v1/namespaces/{NS}/services", compare=False, body={"apiVersion": "v1", "kind": "Service", "metadata": meta("lb"),
     "spec": {"type": "LoadBalancer", "externalIPs": ["1.2.3.4"], "ports": [{"name": "a", "port": 443, "nodePort": 30443}, {"name": "b", "port": 8443, "protocol": "UDP", "nodePort": 30444}]}})
step("status/service/lb", "PATCH", f"/api/v1/namespaces/{NS}/services/lb/status", content_type=MP, compare=False, body={"status": {"loadBalancer": {"ingress": [{"ip": "5.6.7.8"}, {"hostname": "lb.example.com"}, {"ip": "5.6.7.8"}]}}})
step("create/deployment/expr", "POST", f"/apis/apps/v1/namespaces/{NS}/deployments", compare=False, body={"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta("expr"),
     "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "expr"}, "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db", "cache"]}, {"key": "canary", "operator": "DoesNotExist"}]},
              "template": {"metadata": {"labels": {"app": "expr", "tier": "web"}}, "spec": {"containers": [{"name": "a", "image": "nginx"}]}}}}, sleep=1)

# Tables: each list, then a few objects, variants.
lists = [
    "/api/v1/namespaces/{ns}/pods", "/api/v1/namespaces/{ns}/configmaps", "/api/v1/namespaces/{ns}/secrets",
    "/api/v1/namespaces/{ns}/services", "/api/v1/namespaces/{ns}/endpoints", "/api/v1/namespaces/{ns}/serviceaccounts",
    "/api/v1/namespaces/{ns}/events", "/api/v1/namespaces/{ns}/persistentvolumeclaims", "/api/v1/persistentvolumes?labelSelector=fixture%3Dtbl",
    "/api/v1/nodes?labelSelector=fixture%3Dtbl", "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices",
    "/apis/apps/v1/namespaces/{ns}/deployments", "/apis/apps/v1/namespaces/{ns}/statefulsets", "/apis/apps/v1/namespaces/{ns}/daemonsets",
    "/apis/batch/v1/namespaces/{ns}/jobs", "/apis/batch/v1/namespaces/{ns}/cronjobs",
    "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles", "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
    "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses", "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies",
    "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets", "/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers",
    "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases", "/apis/storage.k8s.io/v1/storageclasses?labelSelector=fixture%3Dtbl",
    "/apis/scheduling.k8s.io/v1/priorityclasses?labelSelector=fixture%3Dtbl",
    "/apis/example.com/v1/namespaces/{ns}/widgets", "/apis/example.com/v1/gadgets",
    "/api/v1/namespaces/{ns}/replicationcontrollers", "/api/v1/namespaces/{ns}/resourcequotas",
    "/apis/apps/v1/namespaces/{ns}/replicasets", "/apis/events.k8s.io/v1/namespaces/{ns}/events",
    "/apis/autoscaling/v1/namespaces/{ns}/horizontalpodautoscalers",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?labelSelector=fixture%3Dtbl", "/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities",
    "/api/v1/namespaces/{ns}/limitranges",
]
# The events.k8s.io Events as JSON (not compared: writepath does not share core/v1 Events'
# storage with events.k8s.io yet), for TestEventsV1PrintedAsCore.
step("raw/events.k8s.io", "GET", f"/apis/events.k8s.io/v1/namespaces/{NS}/events", accept="application/json", compare=False)
for l in lists:
    p = l.format(ns=NS)
    step("table/list" + p.split("?")[0], "GET", p, accept=TABLE)
for p in [f"/api/v1/namespaces/{NS}/pods/web", f"/api/v1/namespaces/{NS}/configmaps/cm", "/apis/storage.k8s.io/v1/storageclasses/fast",
          f"/apis/example.com/v1/namespaces/{NS}/widgets/w1", f"/apis/apps/v1/namespaces/{NS}/deployments/web/scale",
          f"/apis/example.com/v1/namespaces/{NS}/widgets/w1/scale", f"/api/v1/namespaces/{NS}/pods/web/status", f"/api/v1/namespaces/{NS}",
          "/apis/networking.k8s.io/v1/ingressclasses/nginx", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/tbl-view",
          "/apis/storage.k8s.io/v1/csidrivers/tbl.csi.example.com", "/apis/node.k8s.io/v1/runtimeclasses/tbl-gvisor",
          "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/tbl-hooks",
          "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/tbl-policy",
          "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/tbl-binding",
          "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/tbl-pl", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/tbl-fs"]:
    step("table/get" + p, "GET", p, accept=TABLE)
step("table/includeObject=None", "GET", f"/api/v1/namespaces/{NS}/configmaps?includeObject=None", accept=TABLE)
step("table/includeObject=Object", "GET", f"/api/v1/namespaces/{NS}/configmaps/cm?includeObject=Object", accept=TABLE)
step("table/includeObject=Object/crd", "GET", f"/apis/example.com/v1/namespaces/{NS}/widgets?includeObject=Object", accept=TABLE)
step("table/includeObject=bad", "GET", f"/api/v1/namespaces/{NS}/configmaps?includeObject=All", accept=TABLE)
step("table/v1beta1", "GET", f"/api/v1/namespaces/{NS}/configmaps/cm", accept="application/json;as=Table;v=v1beta1;g=meta.k8s.io")
step("table/yaml", "GET", f"/api/v1/namespaces/{NS}/configmaps/cm", accept="application/yaml;as=Table;v=v1;g=meta.k8s.io")
step("table/limit", "GET", f"/api/v1/namespaces/{NS}/services?limit=1", accept=TABLE)
step("table/notfound", "GET", f"/api/v1/namespaces/{NS}/configmaps/nope", accept=TABLE)
step("table/protobuf-falls-back", "GET", f"/api/v1/namespaces/{NS}/configmaps/cm", accept="application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json")
step("table/wildcard", "GET", f"/api/v1/namespaces/{NS}/configmaps/cm", accept="*/*;as=Table;v=v1;g=meta.k8s.io")
step("table/dry-run-create", "POST", f"/api/v1/namespaces/{NS}/configmaps?dryRun=All", accept=TABLE, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dry"}})
# Writes answered as Tables (the apiserver transforms every answer that is not a Status).
step("table/patch", "PATCH", f"/api/v1/namespaces/{NS}/configmaps/cm", accept=TABLE, content_type=MP, body={"metadata": {"labels": {"patched": "yes"}}})
step("table/patch-status", "PATCH", f"/apis/apps/v1/namespaces/{NS}/deployments/web/scale", accept=TABLE, content_type=MP, body={"spec": {"replicas": 0}})
step("table/create-yaml", "POST", f"/api/v1/namespaces/{NS}/configmaps?dryRun=All", accept="application/yaml;as=Table;v=v1;g=meta.k8s.io", body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dry2"}, "data": {"x": "y"}})
step("table/delete", "DELETE", f"/api/v1/namespaces/{NS}/secrets/s?dryRun=All", accept=TABLE)
step("table/delete-collection", "DELETE", f"/api/v1/namespaces/{NS}/secrets?dryRun=All", accept=TABLE)
# Not acceptable.
for name, acc in [("bad-version", "application/json;as=Table;v=v2;g=meta.k8s.io"), ("bad-group", "application/json;as=Table;v=v1;g=example.com"),
                  ("bad-kind", "application/json;as=Thing;v=v1;g=meta.k8s.io"), ("protobuf-table", "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io"),
                  ("no-group", "application/json;as=Table"), ("text", "text/plain"), ("stream-yaml", "application/yaml;stream=watch")]:
    step("406/" + name, "GET", f"/api/v1/namespaces/{NS}/configmaps/cm", accept=acc)
step("406/crd-protobuf", "GET", f"/apis/example.com/v1/namespaces/{NS}/widgets/w1", accept="application/vnd.kubernetes.protobuf")
step("406/crd-protobuf-table", "GET", f"/apis/example.com/v1/namespaces/{NS}/widgets/w1", accept="application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io")
# PartialObjectMetadata.
step("pom/get", "GET", f"/api/v1/namespaces/{NS}/configmaps/cm", accept=POM)
step("pom/list", "GET", f"/api/v1/namespaces/{NS}/configmaps", accept=POML)
step("pom/list-as-object", "GET", f"/api/v1/namespaces/{NS}/configmaps", accept=POM)
step("pom/object-as-list", "GET", f"/api/v1/namespaces/{NS}/configmaps/cm", accept=POML)
step("pom/crd-get", "GET", f"/apis/example.com/v1/namespaces/{NS}/widgets/w1", accept=POM)
step("pom/protobuf-get", "GET", f"/api/v1/namespaces/{NS}/configmaps/cm", accept=POM_PB)
step("pom/protobuf-list", "GET", f"/api/v1/namespaces/{NS}/configmaps", accept=POML_PB)
step("pom/protobuf-crd-get", "GET", f"/apis/example.com/v1/namespaces/{NS}/widgets/w1", accept=POM_PB)
step("pom/protobuf-crd-list", "GET", f"/apis/example.com/v1/namespaces/{NS}/widgets", accept=POML_PB)
step("pom/v1beta1-list", "GET", f"/api/v1/namespaces/{NS}/configmaps", accept="application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1")

# Watches (kubectl get -w asks for Tables): initial events, metadata-only protobuf frames; each
# ends after timeoutSeconds. (A WatchList is not recorded: realcluster's apiserver runs without
# the RequestWatchProgress storage feature and refuses it.)
w = f"/api/v1/namespaces/{NS}/configmaps?watch=true&timeoutSeconds=1"
step("watch/table-initial", "GET", w + "&resourceVersion=0", accept=TABLE)
step("watch/table-object", "GET", w + "&resourceVersion=0&includeObject=Object", accept=TABLE)
step("watch/table-bad-includeObject", "GET", w + "&includeObject=x", accept=TABLE)
step("watch/table-crd", "GET", f"/apis/example.com/v1/namespaces/{NS}/widgets?watch=true&timeoutSeconds=1&resourceVersion=0", accept=TABLE)
step("watch/pom-protobuf", "GET", w + "&resourceVersion=0", accept=POM_PB)
step("watch/pom-json", "GET", w + "&resourceVersion=0", accept=POM)
step("watch/406-yaml", "GET", w, accept="application/yaml")
step("watch/406-table-v2", "GET", w, accept="application/json;as=Table;v=v2;g=meta.k8s.io")

json.dump({"namespace": NS, "steps": steps}, open("steps.json", "w"), indent=1)
print(len(steps), "steps")
