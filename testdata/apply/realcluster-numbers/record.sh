#!/usr/bin/env bash
# Records what kube-apiserver 1.37 (../shared/tools/realcluster, kubeconfig
# /tmp/realcluster/kubeconfig) does with integers out of their Go type's range and with
# numbers written as floats, on the apply path and on the update and patch paths. Each step
# writes <scenario>/<NN>-<name>.json in the format of ../recorded/record.sh:
# {"method", "path", "contentType", "manager", "force", "subresource", "dryRun", "body", "code",
# "response"}; response is the exact JSON the apiserver answered (the object, or a Status).
# apply/numbers_test.go replays the applies.
#
# Usage: testdata/apply/realcluster-numbers/record.sh   (from the repository root; cluster up)
set -euo pipefail
KUBECTL=${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl}
export KUBECONFIG=${KUBECONFIG:-/tmp/realcluster/kubeconfig}
OUT=$(cd "$(dirname "$0")" && pwd)
NS=num-recorded
PORT=${PORT:-18109}

$KUBECTL proxy --port=$PORT >/dev/null 2>&1 &
PROXY=$!
trap 'kill $PROXY' EXIT
for _ in $(seq 50); do curl -sf http://127.0.0.1:$PORT/readyz >/dev/null && break; sleep 0.2; done
API=http://127.0.0.1:$PORT

$KUBECTL delete namespace $NS --ignore-not-found --wait=true >/dev/null
$KUBECTL create namespace $NS >/dev/null
# No serviceaccount controller runs on that control plane: the Pod admission plugin needs the
# namespace's default ServiceAccount.
$KUBECTL -n $NS create serviceaccount default >/dev/null
rm -rf "$OUT/deployment" "$OUT/deployment-port" "$OUT/pod" "$OUT/service"

# step SCENARIO NAME METHOD PATH CONTENT-TYPE DRYRUN BODY
step() {
	local scen=$1 name=$2 method=$3 path=$4 ctype=$5 dry=$6 body=$7
	mkdir -p "$OUT/$scen"
	local n; n=$(ls "$OUT/$scen" | wc -l); n=$(printf %02d "$n")
	local q="fieldManager=numbers"
	[ "$dry" = true ] && q="$q&dryRun=All"
	local resp code
	resp=$(mktemp)
	if [ "$method" = GET ]; then
		code=$(curl -s -o "$resp" -w '%{http_code}' "$API$path")
	else
		code=$(curl -s -o "$resp" -w '%{http_code}' -X "$method" -H "Content-Type: $ctype" -H "User-Agent: recorder/1.0 (writepath)" \
			--data-binary "$body" "$API$path?$q")
	fi
	# --rawfile keeps the response's numbers as the apiserver wrote them (jq's own numbers are
	# doubles: 9007199254740993 would read back as 9007199254740992).
	jq -n --arg method "$method" --arg path "$path" --arg ct "$ctype" --arg body "$body" \
		--argjson dry "$dry" --argjson code "$code" --rawfile response "$resp" \
		'{method:$method, path:$path, contentType:$ct, manager:"numbers", force:false, subresource:"", dryRun:$dry, body:$body, code:$code, response:"@RESPONSE@"}' \
		> "$OUT/$scen/$n-$name.json.tmp"
	# splice the raw response in place of the placeholder
	python3 - "$OUT/$scen/$n-$name.json.tmp" "$resp" "$OUT/$scen/$n-$name.json" <<'PY'
import sys
tmpl = open(sys.argv[1]).read()
raw = open(sys.argv[2]).read().strip()
open(sys.argv[3], "w").write(tmpl.replace('"@RESPONSE@"', raw) )
PY
	rm -f "$resp" "$OUT/$scen/$n-$name.json.tmp"
}

A=application/apply-patch+yaml
J=application/json
D=/apis/apps/v1/namespaces/$NS/deployments/d
deploy() { # REPLICAS as YAML text
	printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: %s\n  selector:\n    matchLabels: {app: d}\n  template:\n    metadata:\n      labels: {app: d}\n    spec:\n      containers:\n      - name: c\n        image: nginx\n' "$1"
}
# int32: the merged object's int64 is converted to the Go type with reflect (wraps to 32 bits);
# floats are converted when integral (through int64: beyond its range amd64 gives MinInt64),
# refused otherwise.
step deployment apply-4294967297 PATCH $D $A true "$(deploy 4294967297)"
step deployment apply-2147483648 PATCH $D $A true "$(deploy 2147483648)"
step deployment apply-4294967295 PATCH $D $A true "$(deploy 4294967295)"
step deployment apply-minus-2147483649 PATCH $D $A true "$(deploy -2147483649)"
step deployment apply-1.0 PATCH $D $A true "$(deploy 1.0)"
step deployment apply-1e3 PATCH $D $A true "$(deploy 1e3)"
step deployment apply-2.5 PATCH $D $A true "$(deploy 2.5)"
step deployment apply-9223372036854775808 PATCH $D $A true "$(deploy 9223372036854775808)"
step deployment apply-1e30 PATCH $D $A true "$(deploy 1e30)"
step deployment apply-minus-1e30 PATCH $D $A true "$(deploy -1e30)"
step deployment apply-json-4294967298.0 PATCH $D $A true '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":4294967298.0,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}'
# stored (not a dry run): the wrapped value is what is kept, owned by the applier
step deployment create-4294967297 PATCH $D $A false "$(deploy 4294967297)"
# the same configuration again: the merge differs from the stored 1, the converted object does
# not; the storage layer keeps the old managedFields time and resourceVersion (a no-op)
sleep 1.1
step deployment get-before-reapply GET $D "" false ""
step deployment reapply-4294967297 PATCH $D $A false "$(deploy 4294967297)"
step deployment get GET $D "" false ""
# the update and patch paths (dry runs against the stored object)
LIVE=$(curl -s $API$D)
put() { echo "$LIVE" | sed -E "s/\"replicas\": ?1,/\"replicas\":$1,/"; }
step deployment put-4294967297 PUT $D $J true "$(put 4294967297)"
step deployment put-2.5 PUT $D $J true "$(put 2.5)"
step deployment put-1.0 PUT $D $J true "$(put 1.0)"
step deployment merge-patch-4294967297 PATCH $D application/merge-patch+json true '{"spec":{"replicas":4294967297}}'
step deployment merge-patch-1.0 PATCH $D application/merge-patch+json true '{"spec":{"replicas":1.0}}'
step deployment json-patch-2147483648 PATCH $D application/json-patch+json true '[{"op":"replace","path":"/spec/replicas","value":2147483648}]'
step deployment strategic-4294967298 PATCH $D application/strategic-merge-patch+json true '{"spec":{"replicas":4294967298}}'
step deployment strategic-2147483648 PATCH $D application/strategic-merge-patch+json true '{"spec":{"replicas":2147483648}}'
step deployment strategic-2.0 PATCH $D application/strategic-merge-patch+json true '{"spec":{"replicas":2.0}}'
step deployment strategic-2.5 PATCH $D application/strategic-merge-patch+json true '{"spec":{"replicas":2.5}}'

# a wrapped value in a list key: the applier's managedFields keep the key it sent
# (k:{"containerPort":4294967376,...}), the stored item has 80, so the next apply of the same
# configuration adds another item (the merge sees a new key) and the list grows
DP=/apis/apps/v1/namespaces/$NS/deployments/dp
deployport() {
	echo '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"dp"},"spec":{"selector":{"matchLabels":{"app":"dp"}},"template":{"metadata":{"labels":{"app":"dp"}},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":'"$1"'}]}]}}}}'
}
step deployment-port create-4294967376 PATCH $DP $A false "$(deployport 4294967376)"
sleep 1.1
step deployment-port get GET $DP "" false ""
step deployment-port reapply-4294967376 PATCH $DP $A false "$(deployport 4294967376)"
sleep 1.1
step deployment-port get-again GET $DP "" false ""
step deployment-port reapply-again-4294967376 PATCH $DP $A false "$(deployport 4294967376)"
sleep 1.1
step deployment-port get-last GET $DP "" false ""
step deployment-port apply-80 PATCH $DP $A false "$(deployport 80)"

P=/api/v1/namespaces/$NS/pods/p
pod() { # terminationGracePeriodSeconds containerPort [activeDeadlineSeconds]
	local ads=""
	[ -n "${3:-}" ] && ads=",\"activeDeadlineSeconds\":$3"
	echo "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"automountServiceAccountToken\":false,\"terminationGracePeriodSeconds\":$1$ads,\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":$2}]}]}}"
}
# int64: integers keep every digit; a float form is the float's value (the apiserver's own
# decoding, json.Number to float64, rounds 9007199254740993.0 to 9007199254740992).
step pod apply-int64-9007199254740993 PATCH $P $A true "$(pod 9007199254740993 80)"
step pod apply-int64-9007199254740993.0 PATCH $P $A true "$(pod 9007199254740993.0 80)"
step pod apply-int64-1e19 PATCH $P $A true "$(pod 30 80 1e19)"
step pod apply-int64-9223372036854775807 PATCH $P $A true "$(pod 30 80 9223372036854775807)"
step pod apply-int64-1.5 PATCH $P $A true "$(pod 1.5 80)"
step pod apply-int32-4294967376 PATCH $P $A true "$(pod 30 4294967376)"
step pod apply-int32-80.5 PATCH $P $A true "$(pod 30 80.5)"
step pod apply-int32-2147483648 PATCH $P $A true "$(pod 30 2147483648)"

S=/api/v1/namespaces/$NS/services/s
svc() { echo "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},\"spec\":{\"ports\":[{\"port\":$1,\"targetPort\":$2}]}}"; }
# IntOrString is read through its UnmarshalJSON: encoding/json's range check, no wrapping.
step service apply-port-4294967376 PATCH $S $A true "$(svc 4294967376 8080)"
step service apply-target-4294967376 PATCH $S $A true "$(svc 80 4294967376)"
step service apply-target-2147483648 PATCH $S $A true "$(svc 80 2147483648)"
step service apply-target-minus-2147483649 PATCH $S $A true "$(svc 80 -2147483649)"
step service apply-target-8080.5 PATCH $S $A true "$(svc 80 8080.5)"
step service apply-target-8080.0 PATCH $S $A true "$(svc 80 8080.0)"
step service apply-target-1e3 PATCH $S $A true "$(svc 80 1e3)"
step service apply-target-9223372036854775808 PATCH $S $A true "$(svc 80 9223372036854775808)"
step service apply-target-1e21 PATCH $S $A true "$(svc 80 1e21)"

$KUBECTL delete namespace $NS --wait=false >/dev/null
