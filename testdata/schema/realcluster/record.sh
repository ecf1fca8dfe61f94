#!/usr/bin/env bash
# Records what a real kube-apiserver 1.37 answers to the writes in this directory. Run from the
# repository root with the lead's control plane up:
#   bash testdata/schema/realcluster/record.sh
# Each case writes <case>.out (the object returned, JSON) and <case>.err (stderr: warnings and
# the error) with kubectl --dry-run=server; nothing but the CRD, the namespace and w4 is stored.
set -u
cd "$(dirname "$0")"
K="${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl} --kubeconfig ${KUBECONFIG:-/tmp/realcluster/kubeconfig}"
$K apply -f widget-crd.yaml >/dev/null
$K wait --for=condition=Established crd/widgets.schematest.example.com >/dev/null
$K get ns schema-rc >/dev/null 2>&1 || $K create ns schema-rc >/dev/null
run() { # case validation-level kubectl-args...
  local name=$1 level=$2; shift 2
  $K "$@" --dry-run=server --validate="$level" -o json >"$name.out" 2>"$name.err" || true
}
run create-valid strict create -f create-valid.yaml
run create-invalid warn create -f create-invalid.yaml
run create-unknown-strict strict create -f create-unknown.yaml
run create-unknown-warn warn create -f create-unknown.yaml
run create-unknown-ignore ignore create -f create-unknown.yaml
$K delete -f update-old.yaml --ignore-not-found >/dev/null 2>&1
# The stored object is made invalid by an earlier, laxer schema would be the usual story; here
# size 5 is valid and the update breaks it (not ratcheted) while keeping color.
$K create -f update-old.yaml -o json >update-old.out 2>update-old.err
run update-invalid strict replace -f update-new.yaml
# CRDs the apiserver rejects.
for c in bad-crd-structural bad-crd-defaults bad-crd-selectable bad-crd-selectable-versions; do
  $K create --dry-run=server -f "$c.yaml" >"$c.out" 2>"$c.err" || true
done
