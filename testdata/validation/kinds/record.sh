#!/usr/bin/env bash
# Records, from the real kube-apiserver 1.37 of ../shared/tools/realcluster, writes of the kinds
# schema/validation models (ConfigMap, Secret, ServiceAccount, Namespace, Service, RBAC,
# Deployment, ReplicaSet, Lease, PriorityClass, PodDisruptionBudget) that the apiserver refuses
# with 422 Invalid, each update after the create of the object it updates. One JSON file per
# request: method, path, body, the answer's code and body. Replayed by schema/validation's
# TestRecordedInvalid.
#
# Usage: testdata/validation/kinds/record.sh   (from the repository root; cluster up)
set -euo pipefail
KUBECTL=${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl}
export KUBECONFIG=${KUBECONFIG:-/tmp/realcluster/kubeconfig}
OUT=$(cd "$(dirname "$0")" && pwd)
NS=validation-kinds
PORT=${PORT:-18137}

$KUBECTL proxy --port=$PORT >/dev/null 2>&1 &
PROXY=$!
trap 'kill $PROXY' EXIT
for _ in $(seq 50); do curl -sf http://127.0.0.1:$PORT/readyz >/dev/null && break; sleep 0.2; done
API=http://127.0.0.1:$PORT

$KUBECTL delete namespace $NS --ignore-not-found --wait=true >/dev/null
$KUBECTL create namespace $NS >/dev/null
for n in vk-bad-ns vk-fin; do $KUBECTL delete namespace $n --ignore-not-found --wait=false >/dev/null; done
for k in clusterrole clusterrolebinding; do $KUBECTL delete $k vk-agg vk-crb vk-bad --ignore-not-found >/dev/null 2>&1 || true; done
find "$OUT" -name '*.json' -delete

# step KIND NAME METHOD PATH BODY: one request, its answer saved as KIND/NN-NAME.json.
step() {
	local kind=$1 name=$2 method=$3 path=$4 body=$5
	mkdir -p "$OUT/$kind"
	local n; n=$(ls "$OUT/$kind" | wc -l); n=$(printf %02d "$n")
	local resp code
	resp=$(mktemp)
	code=$(curl -s -o "$resp" -w '%{http_code}' -X "$method" -H 'Content-Type: application/json' --data-binary "$body" "$API$path")
	jq -n --arg method "$method" --arg path "$path" --arg body "$body" --argjson code "$code" --slurpfile response "$resp" \
		'{method: $method, path: $path, body: $body, code: $code, response: $response[0]}' > "$OUT/$kind/$n-$name.json"
	rm -f "$resp"
}

# rv KIND-PATH: the stored object's resourceVersion.
rv() { curl -s "$API$1" | jq -r .metadata.resourceVersion; }

C=/api/v1/namespaces/$NS
step configmap bad-keys POST $C/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad-keys"},"data":{"a b":"x","..x":"y","ok":"z"},"binaryData":{"ok":"AAE="}}'
step configmap create-immutable POST $C/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"frozen"},"data":{"a":"1"},"immutable":true}'
step configmap update-immutable PUT $C/configmaps/frozen "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"frozen\",\"resourceVersion\":\"$(rv $C/configmaps/frozen)\"},\"data\":{\"a\":\"2\"},\"immutable\":false}"

step secret tls-missing POST $C/secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls"},"type":"kubernetes.io/tls","data":{"tls.crt":"eA=="}}'
step secret dockerconfig-bad POST $C/secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"pull"},"type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":"ew=="}}'
step secret sa-token POST $C/secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tok"},"type":"kubernetes.io/service-account-token"}'
step secret create POST $C/secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"k":"v"},"immutable":true}'
step secret update-type PUT $C/secrets/s "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\",\"resourceVersion\":\"$(rv $C/secrets/s)\"},\"type\":\"kubernetes.io/basic-auth\",\"data\":{\"k\":\"dw==\"}}"

step serviceaccount bad-name POST $C/serviceaccounts '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"Bad_Name","finalizers":["nope"]}}'

step namespace bad POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"vk-bad-ns"},"spec":{"finalizers":["a/b/c","plain"]}}'
step namespace create POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"vk-fin"}}'
step namespace status-phase PUT /api/v1/namespaces/vk-fin/status "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"vk-fin\",\"resourceVersion\":\"$(rv /api/v1/namespaces/vk-fin)\"},\"status\":{\"phase\":\"Terminating\"}}"
step namespace finalize-bad PUT /api/v1/namespaces/vk-fin/finalize "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"vk-fin\",\"resourceVersion\":\"$(rv /api/v1/namespaces/vk-fin)\"},\"spec\":{\"finalizers\":[\"plain\",\"x/y\"]}}"

R=/apis/rbac.authorization.k8s.io/v1
step role bad-rules POST $R/namespaces/$NS/roles '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r"},"rules":[{"apiGroups":[""],"resources":["pods"]},{"nonResourceURLs":["/x"],"verbs":["get"]},{"verbs":["get"]}]}'
step clusterrole bad-aggregation POST $R/clusterroles '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"vk-agg"},"aggregationRule":{"clusterRoleSelectors":[{"matchExpressions":[{"key":"a","operator":"In"},{"key":"b","operator":"Bogus"}]}]}}'
step rolebinding bad POST $R/namespaces/$NS/rolebindings '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"rb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Pod","name":""},"subjects":[{"kind":"ServiceAccount","name":"","apiGroup":"x"},{"kind":"Robot","name":"r"}]}'
step clusterrolebinding create POST $R/clusterrolebindings '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"vk-crb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"g"}]}'
step clusterrolebinding roleref-immutable PUT $R/clusterrolebindings/vk-crb "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\"vk-crb\",\"resourceVersion\":\"$(rv $R/clusterrolebindings/vk-crb)\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"edit\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"default\"}]}"

A=/apis/apps/v1/namespaces/$NS
POD='{"containers":[{"name":"c","image":"nginx"}]}'
step deployment selector-mismatch POST $A/deployments "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":-1,\"selector\":{\"matchLabels\":{\"app\":\"x\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"y\"}},\"spec\":$POD}}}"
step deployment surge-zero POST $A/deployments "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"x\"}},\"strategy\":{\"rollingUpdate\":{\"maxSurge\":0,\"maxUnavailable\":\"0%\"}},\"minReadySeconds\":10,\"progressDeadlineSeconds\":5,\"template\":{\"metadata\":{\"labels\":{\"app\":\"x\"}},\"spec\":$POD}}}"
step deployment create POST $A/deployments "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"ok\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"x\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"x\"}},\"spec\":$POD}}}"
step deployment selector-immutable PUT $A/deployments/ok "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"ok\",\"resourceVersion\":\"$(rv $A/deployments/ok)\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"z\"}},\"strategy\":{\"type\":\"Recreate\",\"rollingUpdate\":{\"maxSurge\":1}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"z\"}},\"spec\":$POD}}}"
step replicaset bad POST $A/replicasets "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"rs\"},\"spec\":{\"selector\":{},\"minReadySeconds\":-3,\"template\":{\"metadata\":{\"labels\":{\"app\":\"x\"}},\"spec\":{\"restartPolicy\":\"Never\",\"activeDeadlineSeconds\":5,\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}"

step service bad-ports POST $C/services '{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc"},"spec":{"ports":[{"name":"http","port":80},{"name":"http","port":80,"targetPort":"Bad_Port"},{"port":70000}],"sessionAffinity":"ClientIP","sessionAffinityConfig":{"clientIP":{"timeoutSeconds":0}},"externalTrafficPolicy":"Local"}}'
step service lb-fields POST $C/services '{"apiVersion":"v1","kind":"Service","metadata":{"name":"ext"},"spec":{"type":"ExternalName","externalName":"Bad_Name","clusterIP":"10.96.0.50","loadBalancerSourceRanges":["10.0.0.1/8"],"ports":[{"port":80}]}}'
step service create POST $C/services '{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"ports":[{"port":80}],"selector":{"app":"web"}}}'
step service clusterip-change PUT $C/services/web "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"web\",\"resourceVersion\":\"$(rv $C/services/web)\"},\"spec\":{\"clusterIP\":\"10.96.0.77\",\"clusterIPs\":[\"10.96.0.77\"],\"ports\":[{\"port\":80}],\"selector\":{\"app\":\"web\"}}}"
step lease bad POST /apis/coordination.k8s.io/v1/namespaces/$NS/leases '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"leaseDurationSeconds":0,"leaseTransitions":-1}}'
step priorityclass bad POST /apis/scheduling.k8s.io/v1/priorityclasses '{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"system-mine"},"value":5,"preemptionPolicy":"Sometimes"}'
step poddisruptionbudget bad POST /apis/policy/v1/namespaces/$NS/poddisruptionbudgets '{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"minAvailable":"150%","maxUnavailable":1,"selector":{"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]},"unhealthyPodEvictionPolicy":"Never"}}'

$KUBECTL delete namespace $NS vk-fin --ignore-not-found --wait=false >/dev/null
$KUBECTL delete clusterrolebinding vk-crb --ignore-not-found >/dev/null
