#!/usr/bin/env bash
# Records a rolling update and a scale on the real 1.37 control plane (kube-apiserver and
# kube-controller-manager's deployment and replicaset controllers; no scheduler, no kubelet:
# Pods are marked Running and Ready by patching their status). After each change the script
# waits until nothing changes for 3 s and dumps the Deployment, its ReplicaSets and Pods as one
# "step" of rollout-$SCENARIO.json. Usage: KUBECONFIG=... SCENARIO=rolling|recreate record.sh
# (from this directory); recreate ends with kubectl rollout undo instead of a scale.
set -euo pipefail
K="${KUBECTL:-kubectl}"
NS=controllers-rollout
OUT=${OUT:-rollout-${SCENARIO:-rolling}.json}
$K delete namespace $NS --ignore-not-found --wait=true >/dev/null
$K create namespace $NS >/dev/null
# No serviceaccount controller runs: the ServiceAccount admission plugin needs the default one.
$K -n $NS create serviceaccount default >/dev/null
steps=()
settle() {
  local prev="" cur
  for _ in $(seq 1 60); do
    cur=$($K -n $NS get deploy,rs,pods -o json | jq -S '[.items[] | {kind, name: .metadata.name, rv: .metadata.resourceVersion}]')
    [ "$cur" = "$prev" ] && return 0
    prev=$cur
    sleep 3
  done
}
dump() { # $1: what was done before the controllers settled
  settle
  steps+=("$($K -n $NS get deploy,rs,pods -o json | jq -c --arg what "$1" '{what: $what, objects: [.items[] | del(.metadata.managedFields)]}')")
}
ready_all() {
  local now; now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  for p in $($K -n $NS get pods -o jsonpath='{range .items[?(@.status.phase=="Pending")]}{.metadata.name}{"\n"}{end}'); do
    $K -n $NS patch pod "$p" --subresource=status --type=merge \
      -p "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"$now\"}]}}" >/dev/null
  done
}
SCENARIO=${SCENARIO:-rolling}
if [ "$SCENARIO" = rolling ]; then
  STRATEGY='{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}'
else
  STRATEGY='{type: Recreate}'
fi
cat <<Y | $K -n $NS apply -f - >/dev/null
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  strategy: $STRATEGY
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "nginx:1.27"}]}
Y
dump "create the Deployment"
ready_all; dump "mark the Pods ready"
$K -n $NS set image deployment/web web=nginx:1.28 >/dev/null
dump "set image nginx:1.28"
for i in 1 2 3 4; do ready_all; dump "mark the Pods ready"; done
if [ "$SCENARIO" = rolling ]; then
  $K -n $NS scale deployment/web --replicas=5 >/dev/null
  dump "scale to 5"
else
  $K -n $NS rollout undo deployment/web >/dev/null
  dump "rollout undo"
fi
ready_all; dump "mark the Pods ready"
printf '%s\n' "${steps[@]}" | jq -s '{source: "real kube-apiserver + kube-controller-manager 1.37 (deployment, replicaset controllers), recorded by testdata/controllers/record.sh", steps: .}' > "$OUT"
$K delete namespace $NS --wait=false >/dev/null
echo "wrote $OUT: ${#steps[@]} steps"
