#!/usr/bin/env bash
# Records, from the real kube-apiserver 1.37 of ../shared/tools/realcluster, the Pod
# /ephemeralcontainers and /resize applies (the strategies' value resets) into pod/ and
# server-side applies with dryRun=All (what kubectl apply --server-side --dry-run=server sends)
# into dryrun/. Same step format as record.sh, plus "dryRun". Pods never run on that control
# plane (no nodes); the subresource writes on a Pending pod still answer.
#
# Usage: testdata/apply/recorded/record-pod-dryrun.sh   (from the repository root; cluster up)
set -euo pipefail
KUBECTL=${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl}
export KUBECONFIG=${KUBECONFIG:-/tmp/realcluster/kubeconfig}
OUT=$(cd "$(dirname "$0")" && pwd)
NS=apply-recorded-pod
PORT=${PORT:-18094}

$KUBECTL proxy --port=$PORT >/dev/null 2>&1 &
PROXY=$!
trap 'kill $PROXY' EXIT
for _ in $(seq 50); do curl -sf http://127.0.0.1:$PORT/readyz >/dev/null && break; sleep 0.2; done
API=http://127.0.0.1:$PORT

$KUBECTL delete namespace $NS --ignore-not-found --wait=true >/dev/null
$KUBECTL create namespace $NS >/dev/null
# Pods need the namespace's default ServiceAccount; create it if the controller manager has not.
$KUBECTL -n $NS get serviceaccount default >/dev/null 2>&1 || $KUBECTL -n $NS create serviceaccount default >/dev/null 2>&1 || true
rm -rf "$OUT/pod" "$OUT/dryrun"

# step SCENARIO NAME METHOD PATH CONTENT-TYPE MANAGER FORCE SUBRESOURCE DRYRUN BODY
step() {
	local scen=$1 name=$2 method=$3 path=$4 ctype=$5 manager=$6 force=$7 sub=$8 dry=$9 body=${10}
	mkdir -p "$OUT/$scen"
	local n; n=$(ls "$OUT/$scen" | wc -l); n=$(printf %02d "$n")
	local q="fieldManager=$manager"
	[ -z "$manager" ] && q=""
	[ "$force" = true ] && q="$q&force=true"
	[ "$dry" = true ] && q="$q&dryRun=All"
	local resp code
	resp=$(mktemp)
	if [ "$method" = GET ]; then
		code=$(curl -s -o "$resp" -w '%{http_code}' "$API$path")
	else
		code=$(curl -s -o "$resp" -w '%{http_code}' -X "$method" -H "Content-Type: $ctype" -H "User-Agent: recorder/1.0 (writepath)" \
			--data-binary "$body" "$API$path?$q")
	fi
	jq -n --arg method "$method" --arg path "$path" --arg ct "$ctype" --arg manager "$manager" \
		--argjson force "$force" --arg sub "$sub" --argjson dry "$dry" --arg body "$body" --argjson code "$code" \
		--slurpfile response "$resp" \
		'{method:$method, path:$path, contentType:$ct, manager:$manager, force:$force, subresource:$sub, dryRun:$dry, body:$body, code:$code, response:$response[0]}' \
		> "$OUT/$scen/$n-$name.json"
	rm -f "$resp"
	sleep 1.1 # distinct managedFields times between steps
}

A=application/apply-patch+yaml
P=/api/v1/namespaces/$NS/pods/p
# Every defaulted container field is spelled out so that no defaulting happens after the merge.
C='"imagePullPolicy":"IfNotPresent","terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"'
RES='"resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"200m"}}'
POD='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"a"}},"spec":{"automountServiceAccountToken":false,"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10",'$C','$RES'},{"name":"d","image":"registry.k8s.io/pause:3.10",'$C'}]}}'
# The create only moves the state forward (admission adds tolerations, defaults, ...): the GET
# after it is the live object of the replay.
step pod create-alice PATCH $P $A alice false "" false "$POD"
step pod get-created GET $P "" "" false "" false ""
EPH='"ephemeralContainers":[{"name":"dbg","image":"registry.k8s.io/pause:3.10","resources":{},'$C'}]'
EPHCFG='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"changed","x":"y"},"annotations":{"n":"o"}},"spec":{"activeDeadlineSeconds":30,"containers":[{"name":"c","image":"registry.k8s.io/pause:3.9"}],'$EPH'},"status":{"message":"m"}}'
# The configuration also sets fields alice owns: a 409 without force; forced, the strategy puts
# the stored values back and only spec.ephemeralContainers is recorded.
step pod ephemeral-debugger PATCH $P/ephemeralcontainers $A debugger false ephemeralcontainers false "$EPHCFG"
step pod ephemeral-debugger-force PATCH $P/ephemeralcontainers $A debugger true ephemeralcontainers false "$EPHCFG"
step pod ephemeral-debugger-again PATCH $P/ephemeralcontainers $A debugger false ephemeralcontainers false \
	'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{'$EPH'}}'
RSZ='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"resized"}},"spec":{"activeDeadlineSeconds":30,"containers":[{"name":"c","image":"registry.k8s.io/pause:3.9","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}},"resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}]},{"name":"d","resources":{"requests":{"memory":"10Mi"}}}]},"status":{"message":"m"}}'
step pod resize-vpa PATCH $P/resize $A vpa false resize false "$RSZ"
# Validation (not modelled) rejects the forced write: resizePolicy may not change on resize.
step pod resize-vpa-force-policy PATCH $P/resize $A vpa true resize false "$RSZ"
RSZ=$(echo "$RSZ" | jq -c 'del(.spec.containers[0].resizePolicy)')
step pod resize-vpa-force PATCH $P/resize $A vpa true resize false "$RSZ"
step pod resize-vpa2-conflict PATCH $P/resize $A vpa2 false resize false \
	'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"120m"},"limits":{"cpu":"300m"}}}]}}'
step pod resize-vpa-again PATCH $P/resize $A vpa false resize false \
	'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"160m"},"limits":{"cpu":"300m"}}},{"name":"d","resources":{"requests":{"memory":"10Mi"}}}]}}'
step pod alice-main PATCH $P $A alice false "" false "$POD"

CM=/api/v1/namespaces/$NS/configmaps/cm
D=/apis/apps/v1/namespaces/$NS/deployments/d
CMB='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{"l":"1"}},"data":{"a":"1"}}'
step dryrun create-dry PATCH $CM $A alice false "" true "$CMB"
step dryrun get-after-dry-create GET $CM "" "" false "" false ""
step dryrun create PATCH $CM $A alice false "" false "$CMB"
step dryrun update-dry PATCH $CM $A alice false "" true '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"2","b":"3"}}'
step dryrun noop-dry PATCH $CM $A alice false "" true "$CMB"
step dryrun conflict-dry PATCH $CM $A bob false "" true '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"9"}}'
step dryrun get-after-dry-updates GET $CM "" "" false "" false ""
DB='{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}}}}'
step dryrun deployment-create-dry PATCH $D $A alice false "" true "$DB"
step dryrun deployment-create PATCH $D $A alice false "" false "$DB"
step dryrun get-deployment GET $D "" "" false "" false ""
step dryrun deployment-update-dry PATCH $D $A alice false "" true "$(echo "$DB" | jq -c '.spec.replicas=2')"

$KUBECTL delete namespace $NS --wait=false >/dev/null
