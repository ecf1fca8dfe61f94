#!/usr/bin/env bash
# Records what kube-apiserver 1.37 of ../shared/tools/realcluster (kubeconfig
# /tmp/realcluster/kubeconfig) answers to a server-side dry-run create of each minimal object in
# in/: `kubectl create --dry-run=server -o json --show-managed-fields` (a dryRun=All POST: decoded, defaulted,
# admitted, validated, not stored). out/<name>.json is the returned object;
# schema/defaults/golden_test.go and apply/defaults_test.go replay them.
#
# Usage: testdata/defaults/record.sh   (from the repository root; needs the cluster up)
set -euo pipefail
KUBECTL=${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl}
export KUBECONFIG=${KUBECONFIG:-/tmp/realcluster/kubeconfig}
DIR=$(cd "$(dirname "$0")" && pwd)
NS=defaults-golden

$KUBECTL get namespace $NS >/dev/null 2>&1 || $KUBECTL create namespace $NS >/dev/null
# Pods need the namespace's default service account (the ServiceAccount admission plugin); the
# pods set automountServiceAccountToken: false, so that plugin adds no token volume.
for _ in $(seq 25); do $KUBECTL get -n $NS serviceaccount default >/dev/null 2>&1 && break; sleep 0.2; done
$KUBECTL get -n $NS serviceaccount default >/dev/null 2>&1 || $KUBECTL create -n $NS serviceaccount default >/dev/null
mkdir -p "$DIR/out"
for f in "$DIR"/in/*.yaml; do
	name=$(basename "$f" .yaml)
	$KUBECTL create --dry-run=server -n $NS -o json --show-managed-fields -f "$f" >"$DIR/out/$name.json.tmp"
	mv "$DIR/out/$name.json.tmp" "$DIR/out/$name.json"
done
