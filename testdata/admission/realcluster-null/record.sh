#!/bin/sh
# Records how kube-apiserver 1.37 answers an ApplyConfiguration mutation that sets
# a Deployment's spec.strategy.rollingUpdate.maxSurge (an IntOrString) to a CEL null.
# Needs the real control plane (kubeconfig /tmp/realcluster/kubeconfig).
set -eu
K="${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl} --kubeconfig /tmp/realcluster/kubeconfig"
cd "$(dirname "$0")"
$K apply -f policy.yaml
out=""
for i in 1 2 3 4 5 6 7 8 9 10; do
  out=$($K create --dry-run=server -f deployment.yaml 2>&1 || true)
  case "$out" in *denied*) break ;; esac
  sleep 2
done
printf '%s\n' "$out" | sed -n 's/^The deployments "d1" is invalid: : //p' > maxsurge-null.txt
$K delete mutatingadmissionpolicybinding admission-null6
$K delete mutatingadmissionpolicy admission-null6
$K delete namespace admission-null6 --wait=false
