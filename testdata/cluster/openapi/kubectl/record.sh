#!/usr/bin/env bash
# Records what kubectl 1.37 prints against the real kube-apiserver 1.37 holding ../crds.yaml (as
# ../record.sh leaves it before its last step, or after `kubectl apply -f ../crds.yaml`), for
# cluster's TestKubectlAgainstServer, which runs the same commands against cluster.StartTLS.
# Each case is a file: its first line is "# kubectl ARGS", the rest is kubectl's output and
# "exit N". Cases that write run in this order; the namespace "default" must exist.
#
#   KUBECONFIG=/tmp/realcluster/kubeconfig KUBECTL=~/.cache/realcluster/bin/kubectl ./record.sh
set -euo pipefail
KUBECTL=${KUBECTL:-kubectl}
run() { # run NAME ARGS...
  local name=$1; shift
  { echo "# kubectl $*"; set +e; "$KUBECTL" "$@" 2>&1; echo "exit $?"; set -e; } > "$name.txt"
}
run 01-explain-strategy explain deployment.spec.strategy
run 02-explain-pod-ports explain pods.spec.containers.ports
run 03-explain-widget explain widgets
run 04-explain-widget-spec explain widgets.spec --recursive
run 05-explain-widget-v1beta1 explain widgets --api-version=stable.example.com/v1beta1
run 06-explain-clusterthing explain clusterthings.spec
run 07-api-resources api-resources
run 08-api-versions api-versions
run 09-apply-create apply -f ../../../examples/openapi/deployment.yaml
run 10-apply-configure apply -f ../../../examples/openapi/deployment-v2.yaml
run 11-apply-server-side apply --server-side --force-conflicts -f ../../../examples/openapi/deployment.yaml
run 12-apply-widget-strict apply -f ../../../examples/openapi/widget-unknown-field.yaml
run 13-delete delete -f ../../../examples/openapi/deployment.yaml
