#!/usr/bin/env bash
# Records the Status bodies kube-apiserver 1.37 sends for failed requests, as fixtures for
# status/realcluster_test.go. Needs the real control plane of ../shared/tools/realcluster
# (kubeconfig /tmp/realcluster/kubeconfig). Run from this directory: ./record.sh
# Each <case>.json is the exact response body (bytes as received), <case>.code the HTTP code.
set -euo pipefail
cd "$(dirname "$0")"
KUBECTL="${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl} --kubeconfig ${KUBECONFIG_REAL:-/tmp/realcluster/kubeconfig}"
NS=fielderrors-rec

$KUBECTL get ns "$NS" >/dev/null 2>&1 || $KUBECTL create ns "$NS" >/dev/null

# kubectl proxy on a free port, stopped (by pid) on exit.
log=$(mktemp)
$KUBECTL proxy --port=0 >"$log" 2>&1 &
proxy=$!
trap 'kill "$proxy" 2>/dev/null; rm -f "$log" /tmp/fielderrors-big.json' EXIT
for _ in $(seq 50); do grep -q 'Starting to serve' "$log" && break; sleep 0.1; done
port=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$log")
base="http://127.0.0.1:$port"

# rec NAME METHOD PATH [CONTENT-TYPE [BODY-FILE]]
rec() {
	local name=$1 method=$2 path=$3 ctype=${4:-application/json} body=${5:-}
	# a non-curl User-Agent: the apiserver pretty-prints JSON for curl and wget only.
	local args=(-sS -A writepath-record -o "$name.json" -w '%{http_code}' -X "$method" -H "Content-Type: $ctype" -H 'Accept: application/json')
	[ -n "$body" ] && args+=(--data-binary "@$body")
	curl "${args[@]}" "$base$path" >"$name.code"
	echo "$name: $(cat "$name.code")"
}

cms=/api/v1/namespaces/$NS/configmaps
$KUBECTL -n "$NS" delete configmap cm1 --ignore-not-found >/dev/null
echo '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1"},"data":{"a":"b"}}' >/tmp/fielderrors-cm1.json
curl -sS -o /dev/null -X POST -H 'Content-Type: application/json' --data-binary @/tmp/fielderrors-cm1.json "$base$cms"

rec notfound GET "$cms/missing"
rec notfound-html GET "$cms/a%3Cb%3E%26%C3%A9"
rec alreadyexists POST "$cms" application/json /tmp/fielderrors-cm1.json
echo '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","resourceVersion":"1"},"data":{"a":"c"}}' >/tmp/fielderrors-stale.json
rec conflict PUT "$cms/cm1" application/json /tmp/fielderrors-stale.json
echo '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name","labels":{"-x":"y"}},"data":{"a/b":"c"}}' >/tmp/fielderrors-invalid.json
rec invalid POST "$cms" application/json /tmp/fielderrors-invalid.json
echo '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":-1,"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"y"}},"spec":{"containers":[]}}}}' >/tmp/fielderrors-deploy.json
rec invalid-deployment POST "/apis/apps/v1/namespaces/$NS/deployments" application/json /tmp/fielderrors-deploy.json
echo '{"data":' >/tmp/fielderrors-malformed.json
rec badrequest POST "$cms" application/json /tmp/fielderrors-malformed.json
echo '{"data":{"a":"x"}}' >/tmp/fielderrors-patch.json
rec unsupportedmediatype PATCH "$cms/cm1" text/plain /tmp/fielderrors-patch.json
rec methodnotallowed PUT "/api/v1/namespaces/$NS/pods/p1/log"
head -c 3200000 /dev/zero | tr '\0' 'a' | sed 's/^/{"data":{"a":"/; s/$/"}}/' >/tmp/fielderrors-big.json
rec toolarge POST "$cms" application/json /tmp/fielderrors-big.json
rm -f /tmp/fielderrors-cm1.json /tmp/fielderrors-stale.json /tmp/fielderrors-invalid.json \
	/tmp/fielderrors-deploy.json /tmp/fielderrors-malformed.json /tmp/fielderrors-patch.json

# 403: a user without permissions, through impersonation (kubectl prints the body with -v=9
# only, so the proxy is used with the Impersonate-User header).
curl -sS -A writepath-record -o forbidden.json -w '%{http_code}' -H 'Impersonate-User: fielderrors-nobody' "$base$cms/cm1" >forbidden.code
echo "forbidden: $(cat forbidden.code)"

# 415 from the custom resource handler (not go-restful): a strategic merge patch of a custom resource.
$KUBECTL apply -f - >/dev/null <<'CRD'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.fielderrors.writepath.io}
spec:
  group: fielderrors.writepath.io
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
CRD
$KUBECTL wait --for condition=established crd/widgets.fielderrors.writepath.io >/dev/null
widgets=/apis/fielderrors.writepath.io/v1/namespaces/$NS/widgets
echo '{"apiVersion":"fielderrors.writepath.io/v1","kind":"Widget","metadata":{"name":"w1"}}' >/tmp/fielderrors-w1.json
curl -sS -o /dev/null -X POST -H 'Content-Type: application/json' --data-binary @/tmp/fielderrors-w1.json "$base$widgets"
echo '{"spec":{"a":"x"}}' >/tmp/fielderrors-patch.json
rec unsupportedmediatype-crd PATCH "$widgets/w1" application/strategic-merge-patch+json /tmp/fielderrors-patch.json
rec notfound-crd GET "$widgets/missing"
rm -f /tmp/fielderrors-w1.json /tmp/fielderrors-patch.json
