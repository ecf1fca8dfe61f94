#!/usr/bin/env bash
# Records how kube-apiserver 1.37 talks to a conversion webhook: the ConversionReview requests it
# sends (request-NNN.json, with method, URL and headers in request-NNN.http), the answers of the
# webhook (response-NNN.json, from ./server, which misbehaves on purpose for objects named
# bad-*), and what clients get back (NAME.json / NAME.code for each API call below).
# Fixtures for conversion/realcluster_test.go. Needs the real control plane of
# ../shared/tools/realcluster (kubeconfig /tmp/realcluster/kubeconfig) running on this machine,
# so that the apiserver reaches the webhook on 127.0.0.1. Run from this directory: ./record.sh
set -euo pipefail
cd "$(dirname "$0")"
KUBECTL="${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl} --kubeconfig ${KUBECONFIG_REAL:-/tmp/realcluster/kubeconfig}"
NS=conversion-hook-rec
G=conversion.writepath.test

rm -f request-*.json request-*.http response-*.json ./*.code ca.pem
go build -o /tmp/writepath-conversion-webhook ./server
srvlog=$(mktemp)
/tmp/writepath-conversion-webhook -addr 127.0.0.1:0 -dir . >"$srvlog" 2>&1 &
srv=$!
log=$(mktemp)
hdr=$(mktemp)
trap 'kill "$srv" "${proxy:-}" 2>/dev/null; rm -f "$srvlog" "$log" "$hdr" /tmp/writepath-conversion-webhook' EXIT
for _ in $(seq 100); do [ -s "$srvlog" ] && [ -s ca.pem ] && break; sleep 0.1; done
addr=$(head -1 "$srvlog")
ca=$(base64 -w0 ca.pem)

$KUBECTL get ns "$NS" >/dev/null 2>&1 || $KUBECTL create ns "$NS" >/dev/null
$KUBECTL delete crd convhooks.$G --ignore-not-found --wait=true >/dev/null
$KUBECTL delete crd betahooks.$G --ignore-not-found --wait=true >/dev/null
sed "s|URL|https://$addr/convert|; s|CABUNDLE|$ca|" crd.yaml.in >crd.yaml
# the same CRD with conversionReviewVersions [v1beta1, v1]: the apiserver sends v1beta1 reviews.
sed "s|convhooks|betahooks|g; s|ConvHook|BetaHook|g; s|convhook|betahook|g; s|\[v1\]|[v1beta1, v1]|" crd.yaml >crd-v1beta1-review.yaml
$KUBECTL apply -f crd.yaml -f crd-v1beta1-review.yaml >/dev/null
$KUBECTL wait --for=condition=Established crd/convhooks.$G crd/betahooks.$G --timeout=60s >/dev/null
sleep 3

$KUBECTL proxy --port=0 >"$log" 2>&1 &
proxy=$!
for _ in $(seq 50); do grep -q 'Starting to serve' "$log" && break; sleep 0.1; done
port=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$log")
base="http://127.0.0.1:$port"

# rec NAME METHOD PATH [BODY]
rec() {
	local name=$1 method=$2 path=$3 body=${4:-}
	local args=(-sS -A writepath-record -o "$name.json" -w '%{http_code}' -X "$method" -H 'Content-Type: application/json' -H 'Accept: application/json')
	[ -n "$body" ] && args+=(--data-binary "$body")
	curl "${args[@]}" "$base$path" >"$name.code"
	echo "$name: $(cat "$name.code")"
}
p() { echo "/apis/$G/$1/namespaces/$NS/convhooks${2:+/$2}"; }
obj() { echo "{\"apiVersion\":\"$G/$1\",\"kind\":\"ConvHook\",\"metadata\":{\"name\":\"$2\",\"labels\":{\"app\":\"x\"}},\"spec\":$3}"; }

rec create-good-v1beta1 POST "$(p v1beta1)" "$(obj v1beta1 good '{"size":3}')"
rec get-good-v1 GET "$(p v1 good)"
rec get-good-v1beta1 GET "$(p v1beta1 good)"
rec create-labels-v1beta1 POST "$(p v1beta1)" "$(obj v1beta1 labels '{"size":4}')"
rec get-labels-v1 GET "$(p v1 labels)"
for b in fewer uid rename fail json version; do
	rec "create-bad-$b-v1" POST "$(p v1)" "$(obj v1 "bad-$b" '{"count":5}')"
	rec "get-bad-$b-v1beta1" GET "$(p v1beta1 "bad-$b")"
done
# writes through v1beta1 that the webhook fails: the object never reaches storage.
rec create-bad-fail-v1beta1 POST "$(p v1beta1)" "$(obj v1beta1 bad-fail2 '{"size":6}')"
rec create-bad-version-v1beta1 POST "$(p v1beta1)" "$(obj v1beta1 bad-version2 '{"size":7}')"
rec list-v1beta1-with-bad GET "$(p v1beta1)"
rec create-beta-v1beta1 POST "/apis/$G/v1beta1/namespaces/$NS/betahooks" "{\"apiVersion\":\"$G/v1beta1\",\"kind\":\"BetaHook\",\"metadata\":{\"name\":\"beta-good\"},\"spec\":{\"size\":8}}"
rec get-beta-v1 GET "/apis/$G/v1/namespaces/$NS/betahooks/beta-good"
rec list-v1 GET "$(p v1)"

$KUBECTL delete ns "$NS" --wait=false >/dev/null
$KUBECTL delete crd convhooks.$G betahooks.$G --wait=false >/dev/null
