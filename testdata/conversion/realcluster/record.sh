#!/usr/bin/env bash
# Records how kube-apiserver 1.37 serves a CRD with four versions and conversion strategy None
# (crd.yaml): writes through one version, reads through the others, deprecated-version warnings,
# an unserved version. Fixtures for conversion/realcluster_test.go. Needs the real control plane
# of ../shared/tools/realcluster (kubeconfig /tmp/realcluster/kubeconfig).
# Run from this directory: ./record.sh
# Each case NAME gives NAME.json (response body as received), NAME.code (HTTP code) and
# NAME.warnings (the Warning response headers, one per line); a write's request body is
# NAME.request.json.
set -euo pipefail
cd "$(dirname "$0")"
KUBECTL="${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl} --kubeconfig ${KUBECONFIG_REAL:-/tmp/realcluster/kubeconfig}"
NS=conversion-rec
G=conversion.writepath.test

$KUBECTL get ns "$NS" >/dev/null 2>&1 || $KUBECTL create ns "$NS" >/dev/null
$KUBECTL delete crd convwidgets.$G --ignore-not-found --wait=true >/dev/null
$KUBECTL apply -f crd.yaml >/dev/null
$KUBECTL wait --for=condition=Established crd/convwidgets.$G --timeout=60s >/dev/null
sleep 3 # let discovery and the per-version handlers settle

log=$(mktemp)
hdr=$(mktemp)
$KUBECTL proxy --port=0 >"$log" 2>&1 &
proxy=$!
trap 'kill "$proxy" 2>/dev/null; rm -f "$log" "$hdr"' EXIT
for _ in $(seq 50); do grep -q 'Starting to serve' "$log" && break; sleep 0.1; done
port=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$log")
base="http://127.0.0.1:$port"

# rec NAME METHOD PATH [BODY-FILE]
rec() {
	local name=$1 method=$2 path=$3 body=${4:-}
	local args=(-sS -A writepath-record -D "$hdr" -o "$name.json" -w '%{http_code}' -X "$method" -H 'Content-Type: application/json' -H 'Accept: application/json')
	[ -n "$body" ] && args+=(--data-binary "@$body")
	curl "${args[@]}" "$base$path" >"$name.code"
	{ grep -i '^Warning:' "$hdr" || true; } | sed 's/^[Ww]arning: //; s/\r$//' >"$name.warnings"
	echo "$name: $(cat "$name.code") $(wc -l <"$name.warnings") warnings"
}
p() { echo "/apis/$G/$1/namespaces/$NS/convwidgets${2:+/$2}"; }

# w1: created through v1alpha1 (deprecated, generic warning) with fields only some versions know.
cat >create-v1alpha1.request.json <<JSON
{"apiVersion":"$G/v1alpha1","kind":"ConvWidget","metadata":{"name":"w1","labels":{"app":"w"}},"spec":{"size":3,"legacy":"old","replicas":5,"unknown":true,"extra":{"kept":"k","free":{"a":1}}}}
JSON
rec create-v1alpha1 POST "$(p v1alpha1)" create-v1alpha1.request.json
rec get-w1-v1 GET "$(p v1 w1)"
rec get-w1-v1alpha1 GET "$(p v1alpha1 w1)"
rec get-w1-v1beta1 GET "$(p v1beta1 w1)"
rec get-w1-v2 GET "$(p v2 w1)"

# w2: created through v1 (storage), read through the deprecated versions.
cat >create-v1.request.json <<JSON
{"apiVersion":"$G/v1","kind":"ConvWidget","metadata":{"name":"w2"},"spec":{"size":7,"color":"red","replicas":2,"extra":{"kept":"x","dropped":"y"}},"status":{"phase":"Ready"}}
JSON
rec create-v1 POST "$(p v1)" create-v1.request.json
rec get-w2-v1alpha1 GET "$(p v1alpha1 w2)"
rec get-w2-v1beta1 GET "$(p v1beta1 w2)"

# w3: created through v1beta1 (custom deprecationWarning); its default replicas is stored.
cat >create-v1beta1.request.json <<JSON
{"apiVersion":"$G/v1beta1","kind":"ConvWidget","metadata":{"name":"w3"},"spec":{"size":1,"color":"green","legacy":"gone"}}
JSON
rec create-v1beta1 POST "$(p v1beta1)" create-v1beta1.request.json
rec get-w3-v1 GET "$(p v1 w3)"

# lists: every item converted to the request version.
rec list-v1alpha1 GET "$(p v1alpha1)"
rec list-v1beta1 GET "$(p v1beta1)"
rec list-v1 GET "$(p v1)"

# writing through an unserved version.
cat >create-v2.request.json <<JSON
{"apiVersion":"$G/v2","kind":"ConvWidget","metadata":{"name":"w4"},"spec":{"size":1}}
JSON
rec create-v2 POST "$(p v2)" create-v2.request.json

# kubectl's own rendering of the warnings (stderr of a read through the deprecated version).
$KUBECTL get convwidgets.v1alpha1.$G -n "$NS" w1 -o name 2>kubectl-get-v1alpha1.stderr >kubectl-get-v1alpha1.stdout || true

$KUBECTL delete ns "$NS" --wait=false >/dev/null
$KUBECTL delete crd convwidgets.$G --wait=false >/dev/null
