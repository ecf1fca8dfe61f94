#!/usr/bin/env bash
# Records server-side apply and update scenarios from the real kube-apiserver 1.37 of
# ../shared/tools/realcluster (kubeconfig /tmp/realcluster/kubeconfig). Each step writes
# <scenario>/<NN>-<name>.json: {"method", "path", "contentType", "manager", "force",
# "subresource", "body", "code", "response"} where response is the exact JSON the apiserver
# answered (the stored object, or a Status). apply/recorded_test.go replays them.
#
# Usage: testdata/apply/recorded/record.sh   (from the repository root; needs the cluster up)
set -euo pipefail
KUBECTL=${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl}
export KUBECONFIG=${KUBECONFIG:-/tmp/realcluster/kubeconfig}
OUT=$(cd "$(dirname "$0")" && pwd)
NS=apply-recorded
PORT=${PORT:-18093}

$KUBECTL proxy --port=$PORT >/dev/null 2>&1 &
PROXY=$!
trap 'kill $PROXY' EXIT
for _ in $(seq 50); do curl -sf http://127.0.0.1:$PORT/readyz >/dev/null && break; sleep 0.2; done
API=http://127.0.0.1:$PORT

$KUBECTL delete namespace $NS --ignore-not-found --wait=true >/dev/null
$KUBECTL create namespace $NS >/dev/null
$KUBECTL delete crd widgets.apply.writepath.example --ignore-not-found --wait=true >/dev/null
$KUBECTL apply -f "$OUT/widget-crd.yaml" >/dev/null
$KUBECTL wait --for=condition=Established crd/widgets.apply.writepath.example >/dev/null

# step SCENARIO NAME METHOD PATH CONTENT-TYPE MANAGER FORCE SUBRESOURCE BODY
step() {
	local scen=$1 name=$2 method=$3 path=$4 ctype=$5 manager=$6 force=$7 sub=$8 body=$9
	mkdir -p "$OUT/$scen"
	local n; n=$(ls "$OUT/$scen" | wc -l); n=$(printf %02d "$n")
	local q="fieldManager=$manager"
	[ -z "$manager" ] && q=""
	[ "$force" = true ] && q="$q&force=true"
	local resp code
	resp=$(mktemp)
	if [ "$method" = GET ]; then
		code=$(curl -s -o "$resp" -w '%{http_code}' "$API$path")
	else
		code=$(curl -s -o "$resp" -w '%{http_code}' -X "$method" -H "Content-Type: $ctype" -H "User-Agent: recorder/1.0 (writepath)" \
			--data-binary "$body" "$API$path?$q")
	fi
	jq -n --arg method "$method" --arg path "$path" --arg ct "$ctype" --arg manager "$manager" \
		--argjson force "$force" --arg sub "$sub" --arg body "$body" --argjson code "$code" \
		--slurpfile response "$resp" \
		'{method:$method, path:$path, contentType:$ct, manager:$manager, force:$force, subresource:$sub, body:$body, code:$code, response:$response[0]}' \
		> "$OUT/$scen/$n-$name.json"
	rm -f "$resp"
	sleep 1.1 # distinct managedFields times between steps
}

CM=/api/v1/namespaces/$NS/configmaps/cm
A=application/apply-patch+yaml
J=application/json
step configmap create-alice PATCH $CM $A alice false "" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1","b":"2"}}'
step configmap shared-bob PATCH $CM $A bob false "" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}}'
step configmap noop-alice PATCH $CM $A alice false "" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1","b":"2"}}'
step configmap conflict-carol PATCH $CM $A carol false "" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{"x":"y"}},"data":{"a":"9","b":"8"}}'
step configmap force-carol PATCH $CM $A carol true "" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{"x":"y"}},"data":{"a":"9"}}'
step configmap alice-drops-a PATCH $CM $A alice false "" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"b":"2","c":"3"}}'
step configmap managedfields-in-config PATCH $CM $A alice false "" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[]},"data":{"b":"2"}}'
step configmap wrong-kind PATCH $CM $A alice false "" '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"cm"}}'
step configmap wrong-version PATCH $CM $A alice false "" '{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"cm"}}'
step configmap unknown-field PATCH $CM $A alice false "" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"spec":{"x":1}}'
step configmap no-manager PATCH $CM $A "" false "" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}'
LIVE=$(curl -s $API$CM)
PUTBODY=$(echo "$LIVE" | jq -c '.data.b="20" | .data.d="4"')
step configmap put-editor PUT $CM $J editor false "" "$PUTBODY"
PUTBODY=$(echo "$PUTBODY" | jq -c 'del(.metadata.resourceVersion) | .data.e="5"')
step configmap put-user-agent PUT $CM $J "" false "" "$PUTBODY"
PUTBODY=$(echo "$PUTBODY" | jq -c '.metadata.managedFields=[{}]')
step configmap put-reset-managedfields PUT $CM $J editor false "" "$PUTBODY"
step configmap first-apply-dave PATCH $CM $A dave false "" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"100"}}'
step configmap first-apply-dave-force PATCH $CM $A dave true "" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"100"}}'

W=/apis/apply.writepath.example/v1/namespaces/$NS/widgets/w
step widget create-alice PATCH $W $A alice false "" '{"apiVersion":"apply.writepath.example/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":3,"size":"m","args":["a","b"],"config":{"k":"v"}},"status":{"phase":"ignored"}}'
step widget scale-hpa PATCH $W/scale application/merge-patch+json horizontal-pod-autoscaler false scale '{"spec":{"replicas":5}}'
step widget get-after-scale GET $W "" "" false "" ""
step widget alice-again PATCH $W $A alice false "" '{"apiVersion":"apply.writepath.example/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":3,"size":"m","args":["a","b"],"config":{"k":"v"}}}'
step widget status-ctrl PATCH $W/status $A ctrl false status '{"apiVersion":"apply.writepath.example/v1","kind":"Widget","metadata":{"name":"w","labels":{"l":"1"}},"spec":{"size":"xl"},"status":{"phase":"Ready","ready":2}}'
step widget status-ctrl-again PATCH $W/status $A ctrl false status '{"apiVersion":"apply.writepath.example/v1","kind":"Widget","metadata":{"name":"w"},"status":{"phase":"Ready","ready":2}}'
step widget bob-args PATCH $W $A bob false "" '{"apiVersion":"apply.writepath.example/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"args":["c"],"config":{"k":"v"}}}'
step widget alice-force PATCH $W $A alice true "" '{"apiVersion":"apply.writepath.example/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":3,"size":"m","args":["a","b"]}}'
step widget alice-status-in-main PATCH $W $A alice false "" '{"apiVersion":"apply.writepath.example/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":3,"size":"m","args":["a","b"]},"status":{"phase":"Broken"}}'

$KUBECTL delete namespace $NS --wait=false >/dev/null
$KUBECTL delete crd widgets.apply.writepath.example --wait=false >/dev/null
