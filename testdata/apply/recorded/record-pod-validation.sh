#!/usr/bin/env bash
# Records, from the real kube-apiserver 1.37 of ../shared/tools/realcluster, the validation of
# Pod /resize and /ephemeralcontainers writes (podResizeStrategy and
# podEphemeralContainersStrategy ValidateUpdate: the 422s with their field paths and messages,
# and the valid writes with their generation bump) into podresize/ and podephemeral/, and the
# generation and observedGeneration rules of Pod /status and main-resource writes into
# podgeneration/. Same step format as record-pod-dryrun.sh. Pods never run on that control plane
# (no nodes): they stay Pending and unscheduled; the subresource writes still answer, and a
# status written by hand stands in for the kubelet.
#
# Usage: testdata/apply/recorded/record-pod-validation.sh   (from the repository root; cluster up)
set -euo pipefail
KUBECTL=${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl}
export KUBECONFIG=${KUBECONFIG:-/tmp/realcluster/kubeconfig}
OUT=$(cd "$(dirname "$0")" && pwd)
NS=apply-recorded-podval
PORT=${PORT:-18095}

$KUBECTL proxy --port=$PORT >/dev/null 2>&1 &
PROXY=$!
trap 'kill $PROXY' EXIT
for _ in $(seq 50); do curl -sf http://127.0.0.1:$PORT/readyz >/dev/null && break; sleep 0.2; done
API=http://127.0.0.1:$PORT

$KUBECTL delete namespace $NS --ignore-not-found --wait=true >/dev/null
$KUBECTL create namespace $NS >/dev/null
$KUBECTL -n $NS get serviceaccount default >/dev/null 2>&1 || $KUBECTL -n $NS create serviceaccount default >/dev/null 2>&1 || true
rm -rf "$OUT/podresize" "$OUT/podephemeral" "$OUT/podgeneration"

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
	cp "$resp" /tmp/last-response.json
	rm -f "$resp"
	sleep 1.1 # distinct managedFields times between steps
}
# last: the object of the last response (for PUT bodies built from it), without resourceVersion
# and managedFields (an unconditional PUT; managedFields left to the server).
last() { jq -c 'del(.metadata.resourceVersion, .metadata.managedFields)' /tmp/last-response.json; }

A=application/apply-patch+yaml
J=application/json
# Every defaulted container field is spelled out so that no defaulting happens after the merge.
C='"imagePullPolicy":"IfNotPresent","terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"'
IMG='"image":"registry.k8s.io/pause:3.10"'

# ---- /resize: pod r, Burstable, two containers, a regular init container and a sidecar.
R=/api/v1/namespaces/$NS/pods/r
PODR='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"r"},"spec":{"automountServiceAccountToken":false,
"initContainers":[{"name":"i",'$IMG','$C',"resources":{"requests":{"cpu":"50m"}}},
 {"name":"s",'$IMG','$C',"restartPolicy":"Always","resources":{"requests":{"cpu":"50m"}}}],
"containers":[{"name":"c",'$IMG','$C',"resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"200m"}}},{"name":"d",'$IMG','$C'}]}}'
step podresize create PATCH $R $A alice false "" false "$PODR"
step podresize get-created GET $R "" "" false "" false ""
rs() { echo '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"r"},"spec":{'"$1"'}}'; }
step podresize cpu-up PATCH $R/resize $A vpa true resize false "$(rs '"containers":[{"name":"c","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]')"
step podresize remove-limits PATCH $R/resize $A vpa true resize false "$(rs '"containers":[{"name":"c","resources":{"requests":{"cpu":"150m"}}}]')"
step podresize qos-to-guaranteed PATCH $R/resize $A vpa true resize false "$(rs '"initContainers":[{"name":"i","resources":{"requests":{"cpu":"50m","memory":"16Mi"},"limits":{"cpu":"50m","memory":"16Mi"}}},{"name":"s","resources":{"requests":{"cpu":"50m","memory":"16Mi"},"limits":{"cpu":"50m","memory":"16Mi"}}}],"containers":[{"name":"c","resources":{"requests":{"cpu":"300m","memory":"16Mi"},"limits":{"cpu":"300m","memory":"16Mi"}}},{"name":"d","resources":{"requests":{"cpu":"50m","memory":"16Mi"},"limits":{"cpu":"50m","memory":"16Mi"}}}]')"
step podresize ephemeral-storage PATCH $R/resize $A vpa true resize false "$(rs '"containers":[{"name":"c","resources":{"requests":{"cpu":"150m","ephemeral-storage":"1Gi"},"limits":{"cpu":"300m"}}}]')"
step podresize init-ephemeral-storage PATCH $R/resize $A vpa true resize false "$(rs '"initContainers":[{"name":"i","resources":{"requests":{"cpu":"50m","ephemeral-storage":"1Gi"}}}]')"
step podresize add-container PATCH $R/resize $A vpa true resize false "$(rs '"containers":[{"name":"e",'"$IMG"','"$C"',"resources":{"requests":{"cpu":"10m"}}}]')"
step podresize resize-policy PATCH $R/resize $A vpa true resize false "$(rs '"containers":[{"name":"d","resizePolicy":[{"resourceName":"memory","restartPolicy":"RestartContainer"}]}]')"
step podresize add-memory-d PATCH $R/resize $A vpa true resize false "$(rs '"containers":[{"name":"d","resources":{"requests":{"memory":"10Mi"}}}]')"
step podresize sidecar-cpu PATCH $R/resize $A vpa2 true resize false "$(rs '"initContainers":[{"name":"s","resources":{"requests":{"cpu":"60m"}}}]')"
step podresize init-cpu PATCH $R/resize $A vpa2 true resize false "$(rs '"initContainers":[{"name":"i","resources":{"requests":{"cpu":"70m"}}}]')"
step podresize noop PATCH $R/resize $A vpa2 true resize false "$(rs '"initContainers":[{"name":"i","resources":{"requests":{"cpu":"70m"}}}]')"
step podresize image-dropped PATCH $R/resize $A vpa3 true resize false "$(rs '"containers":[{"name":"c","image":"registry.k8s.io/pause:3.9","resources":{"requests":{"cpu":"160m"},"limits":{"cpu":"300m"}}}]')"
step podresize dry-run PATCH $R/resize $A vpa true resize true "$(rs '"containers":[{"name":"c","resources":{"requests":{"cpu":"170m"},"limits":{"cpu":"300m"}}}]')"
step podresize get GET $R "" "" false "" false ""
step podresize put-rename PUT $R/resize $J vpa false resize false "$(last | jq -c '.spec.containers[1].name="d2"')"
step podresize get2 GET $R "" "" false "" false ""
step podresize put-remove-requests PUT $R/resize $J vpa false resize false "$(last | jq -c 'del(.spec.containers[1].resources)')"
step podresize get3 GET $R "" "" false "" false ""
step podresize put-cpu PUT $R/resize $J vpa false resize false "$(last | jq -c '.spec.containers[1].resources.requests.cpu="20m"')"
step podresize add-memory-d-vpa4 PATCH $R/resize $A vpa4 false resize false "$(rs '"containers":[{"name":"d","resources":{"requests":{"memory":"10Mi"}}}]')"
step podresize memory-policy-vpa5 PATCH $R/resize $A vpa5 false resize false "$(rs '"containers":[{"name":"d","resizePolicy":[{"resourceName":"memory","restartPolicy":"RestartContainer"}]}]')"
step podresize init-cpu-vpa6 PATCH $R/resize $A vpa6 true resize false "$(rs '"initContainers":[{"name":"i","resources":{"requests":{"cpu":"80m"}}}]')"
step podresize drop-memory-vpa4 PATCH $R/resize $A vpa4 false resize false "$(rs '"containers":[{"name":"d"}]')"
step podresize pod-level-add PATCH $R/resize $A vpa true resize false "$(rs '"resources":{"requests":{"cpu":"1"}}')"
# A status written by hand stands in for a kubelet whose node does not support resize: a
# running container without status resources.
step podresize get4 GET $R "" "" false "" false ""
step podresize status-running PATCH $R/status $A kubelet true status false \
	'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"r"},"status":{"phase":"Running","containerStatuses":[{"name":"c","image":"registry.k8s.io/pause:3.10","imageID":"","ready":true,"restartCount":0,"started":true,"state":{"running":{"startedAt":"2026-01-01T00:00:00Z"}}},{"name":"d","image":"registry.k8s.io/pause:3.10","imageID":"","ready":true,"restartCount":0,"started":true,"state":{"running":{"startedAt":"2026-01-01T00:00:00Z"}}}]}}'
step podresize running-unsupported PATCH $R/resize $A vpa true resize false "$(rs '"containers":[{"name":"c","resources":{"requests":{"cpu":"180m"},"limits":{"cpu":"300m"}}}]')"
W=/api/v1/namespaces/$NS/pods/w
step podresize create-windows PATCH $W $A alice false "" false '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w"},"spec":{"automountServiceAccountToken":false,"os":{"name":"windows"},"containers":[{"name":"c",'"$IMG"','"$C"',"resources":{"requests":{"cpu":"100m"}}}]}}'
step podresize get-windows GET $W "" "" false "" false ""
step podresize windows PATCH $W/resize $A vpa true resize false '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"150m"}}}]}}'

# ---- /ephemeralcontainers: pod e with a volume, a container and an init container.
E=/api/v1/namespaces/$NS/pods/e
PODE='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"e"},"spec":{"automountServiceAccountToken":false,"volumes":[{"name":"v","emptyDir":{}}],
"initContainers":[{"name":"i",'$IMG','$C'}],"containers":[{"name":"c",'$IMG','$C'}]}}'
step podephemeral create PATCH $E $A alice false "" false "$PODE"
step podephemeral get-created GET $E "" "" false "" false ""
ep() { echo '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"e"},"spec":{"ephemeralContainers":['"$1"']}}'; }
DBG='{"name":"dbg",'$IMG','$C',"targetContainerName":"c","stdin":true,"tty":true}'
step podephemeral add-dbg PATCH $E/ephemeralcontainers $A debugger false ephemeralcontainers false "$(ep "$DBG")"
step podephemeral change-image PATCH $E/ephemeralcontainers $A debugger false ephemeralcontainers false "$(ep "$(echo "$DBG" | jq -c '.image="registry.k8s.io/pause:3.9"')")"
step podephemeral change-args PATCH $E/ephemeralcontainers $A debugger false ephemeralcontainers false "$(ep "$(echo "$DBG" | jq -c '.args=["sleep","1"]|.env=[{"name":"A","value":"b"}]|.stdin=false')")"
step podephemeral duplicate-name PATCH $E/ephemeralcontainers $A debugger2 false ephemeralcontainers false "$(ep '{"name":"c",'"$IMG"','"$C"'}')"
step podephemeral duplicate-init-name PATCH $E/ephemeralcontainers $A debugger2 false ephemeralcontainers false "$(ep '{"name":"i",'"$IMG"','"$C"'}')"
step podephemeral forbidden-fields PATCH $E/ephemeralcontainers $A debugger2 false ephemeralcontainers false "$(ep '{"name":"x",'"$IMG"','"$C"',"ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"requests":{"cpu":"10m"}},"resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}],"restartPolicy":"Always","lifecycle":{"preStop":{"sleep":{"seconds":1}}},"readinessProbe":{"exec":{"command":["true"]},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}}')"
step podephemeral target-not-found PATCH $E/ephemeralcontainers $A debugger2 false ephemeralcontainers false "$(ep '{"name":"x",'"$IMG"','"$C"',"targetContainerName":"zzz"}')"
step podephemeral no-image PATCH $E/ephemeralcontainers $A debugger2 false ephemeralcontainers false "$(ep '{"name":"x",'"$C"'}')"
step podephemeral bad-name PATCH $E/ephemeralcontainers $A debugger2 false ephemeralcontainers false "$(ep '{"name":"Bad_Name",'"$IMG"','"$C"'}')"
step podephemeral image-whitespace PATCH $E/ephemeralcontainers $A debugger2 false ephemeralcontainers false "$(ep '{"name":"x","image":" registry.k8s.io/pause:3.10",'"$C"'}')"
step podephemeral subpath PATCH $E/ephemeralcontainers $A debugger2 false ephemeralcontainers false "$(ep '{"name":"x",'"$IMG"','"$C"',"volumeMounts":[{"name":"v","mountPath":"/v","subPath":"a"},{"name":"v","mountPath":"/w","subPathExpr":"$(X)"}]}')"
step podephemeral target-init PATCH $E/ephemeralcontainers $A debugger2 false ephemeralcontainers false "$(ep '{"name":"dbg2",'"$IMG"','"$C"',"targetContainerName":"i","volumeMounts":[{"name":"v","mountPath":"/v"}]}')"
step podephemeral dry-run PATCH $E/ephemeralcontainers $A debugger3 false ephemeralcontainers true "$(ep '{"name":"dbg3",'"$IMG"','"$C"'}')"
step podephemeral labels-dropped PATCH $E/ephemeralcontainers $A debugger4 false ephemeralcontainers false '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"e","labels":{"a":"b"}}}'
step podephemeral get GET $E "" "" false "" false ""
step podephemeral put-same PUT $E/ephemeralcontainers $J debugger false ephemeralcontainers false "$(last)"
step podephemeral get2 GET $E "" "" false "" false ""
step podephemeral put-remove PUT $E/ephemeralcontainers $J debugger false ephemeralcontainers false "$(last | jq -c '.spec.ephemeralContainers=[.spec.ephemeralContainers[1]]')"
step podephemeral get3 GET $E "" "" false "" false ""
step podephemeral put-change-resources PUT $E/ephemeralcontainers $J debugger false ephemeralcontainers false "$(last | jq -c '.spec.ephemeralContainers[0].workingDir="/tmp"')"

# ---- generation: main-resource writes, /status, observedGeneration.
G=/api/v1/namespaces/$NS/pods/g
PODG='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"g"},"spec":{"automountServiceAccountToken":false,"containers":[{"name":"c",'$IMG','$C'}]}}'
step podgeneration create PATCH $G $A alice false "" false "$PODG"
step podgeneration get-created GET $G "" "" false "" false ""
step podgeneration labels-only PATCH $G $A alice false "" false "$(echo "$PODG" | jq -c '.metadata.labels={"a":"b"}')"
step podgeneration spec-change PATCH $G $A alice false "" false "$(echo "$PODG" | jq -c '.metadata.labels={"a":"b"}|.spec.activeDeadlineSeconds=600')"
step podgeneration spec-change-dry PATCH $G $A alice false "" true "$(echo "$PODG" | jq -c '.metadata.labels={"a":"b"}|.spec.activeDeadlineSeconds=300')"
step podgeneration status-observed PATCH $G/status $A kubelet false status false \
	'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"g"},"status":{"observedGeneration":2,"conditions":[{"type":"PodScheduled","status":"False","observedGeneration":2,"reason":"Unschedulable"}]}}'
step podgeneration status-without-observed PATCH $G/status $A kubelet false status false \
	'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"g"},"status":{"message":"m","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}]}}'
step podgeneration get GET $G "" "" false "" false ""
step podgeneration put-status-clears PUT $G/status $J kubelet false status false "$(last | jq -c 'del(.status.observedGeneration)|.status.conditions[0].observedGeneration=0|.status.qosClass=""')"
step podgeneration put-main-spec PUT $G $J editor false "" false "$(last | jq -c '.spec.activeDeadlineSeconds=500|.status.message="ignored"')"
step podgeneration get2 GET $G "" "" false "" false ""
step podgeneration put-main-same PUT $G $J editor false "" false "$(last | jq -c '.metadata.generation=7')"
step podgeneration create-dry PATCH /api/v1/namespaces/$NS/pods/h $A alice false "" true "$(echo "$PODG" | jq -c '.metadata.name="h"')"

$KUBECTL delete namespace $NS --wait=false >/dev/null
