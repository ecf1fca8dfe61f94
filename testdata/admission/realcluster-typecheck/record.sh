#!/usr/bin/env bash
# Records status.typeChecking of the ValidatingAdmissionPolicies in policies.yaml as
# kube-controller-manager 1.37's validatingadmissionpolicy-status controller writes it, on the real
# control plane. Usage (repository root, real cluster up):
#   bash testdata/admission/realcluster-typecheck/record.sh
# Applies crd.yaml (the Gadget CRD some policies match or take params of), then each policy, waits
# until the controller has observed its generation (status.observedGeneration), and writes
# status.json: policy name -> status (conditions' times dropped). Deletes the policies afterwards
# (the CRD stays for the next recording).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
K="$HOME/.cache/realcluster/bin/kubectl --kubeconfig /tmp/realcluster/kubeconfig"
cd "$HERE"
$K apply -f crd.yaml >/dev/null
$K wait --for condition=established crd/gadgets.prm-tc.example.com >/dev/null
sleep 5 # discovery and the OpenAPI v3 of the new group reach the controller
$K delete -f policies.yaml --ignore-not-found >/dev/null
$K create -f policies.yaml >/dev/null
names=$(python3 -c 'import re,sys; print("\n".join(re.findall(r"^  name: (prm-tc-[a-z0-9-]+)", open("policies.yaml").read(), re.M)))')
for _ in $(seq 120); do
  pending=0
  for n in $names; do
    g=$($K get validatingadmissionpolicy "$n" -o jsonpath='{.metadata.generation}/{.status.observedGeneration}')
    [ "${g%/*}" = "${g#*/}" ] || pending=$((pending+1))
  done
  [ $pending = 0 ] && break
  sleep 1
done
$K get validatingadmissionpolicy $names -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
out = {}
for p in items:
    st = p.get("status", {})
    for c in st.get("conditions", []):
        c.pop("lastTransitionTime", None)
    out[p["metadata"]["name"]] = st
json.dump(out, open("status.json", "w"), indent=1, sort_keys=True)
print(len(out), "policies,", sum(1 for s in out.values() if s.get("typeChecking", {}).get("expressionWarnings")), "with warnings")
'
$K delete -f policies.yaml >/dev/null
