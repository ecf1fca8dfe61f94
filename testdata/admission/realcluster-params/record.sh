#!/usr/bin/env bash
# Records how kube-apiserver 1.37 presents params of several kinds to ValidatingAdmissionPolicies
# and MutatingAdmissionPolicies. Usage (repository root, real cluster up):
#   bash testdata/admission/realcluster-params/record.sh [scenario ...]
# Applies params.yaml and widget.yaml once, writes params.json (the param objects as the server
# returns them, managedFields included), then for each scenario directory applies config.yaml,
# waits for the policy to answer, POSTs request.json (dryRun=All) and writes response.json (HTTP
# code, Warning headers, body). params.json is read again after the scenarios; the script fails
# if a param changed meanwhile (a controller updated it).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
K="$HOME/.cache/realcluster/bin/kubectl --kubeconfig /tmp/realcluster/kubeconfig"
SERVER=https://127.0.0.1:6443 TOKEN=admintoken
cd "$HERE"
$K apply -f params.yaml >/dev/null
$K wait --for condition=established crd/widgets.prm.example.com >/dev/null
$K apply -f widget.yaml >/dev/null
sleep 10 # let the deployment controller settle the Deployment's status
snapshot() {
  $K get -o json --show-managed-fields \
    -n prm-params deployment/prm-dep secret/prm-secret configmap/prm-cm service/prm-svc pod/prm-pod widget/prm-widget
  $K get -o json --show-managed-fields namespace/prm-params clusterrole/prm-role
}
snapshot | python3 -c '
import json, sys
dec, s, items = json.JSONDecoder(), sys.stdin.read(), []
i = 0
while True:
    while i < len(s) and s[i].isspace(): i += 1
    if i >= len(s): break
    d, i = dec.raw_decode(s, i)
    items += d["items"] if d.get("kind") == "List" else [d]
json.dump(items, open("params.json", "w"), indent=1, sort_keys=True)
'
cp params.json /tmp/prm-params-before.json
post() {
  curl -sk -o /tmp/prm-body.json -D /tmp/prm-headers.txt -w '%{http_code}' -X POST \
    -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -H 'Accept: application/json' \
    --data-binary @request.json "$SERVER/api/v1/namespaces/prm-params/configmaps?dryRun=All"
}
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=($(ls -d */ | tr -d /))
for s in "${scenarios[@]}"; do
  $K apply -f "$s/config.yaml" >/dev/null
  for _ in $(seq 60); do
    code=$(post)
    if [ "$code" != 201 ] || grep -qi '^warning:' /tmp/prm-headers.txt || python3 -c 'import json,sys; sys.exit(0 if json.load(open("/tmp/prm-body.json"))["metadata"].get("annotations") else 1)'; then break; fi
    sleep 0.5
  done
  sleep 2
  code=$(post)
  python3 - "$s" "$code" <<'PY'
import json, sys
name, code = sys.argv[1], int(sys.argv[2])
warns = [l.split(":", 1)[1].strip() for l in open("/tmp/prm-headers.txt") if l.lower().startswith("warning:")]
body = json.load(open("/tmp/prm-body.json"))
json.dump({"code": code, "warnings": warns, "body": body}, open(name + "/response.json", "w"), indent=2, sort_keys=True)
print(name, code, len(warns), "warnings")
PY
  $K delete -f "$s/config.yaml" --wait=false >/dev/null
  # Wait until the policy no longer answers, so the next scenario sees only its own.
  for _ in $(seq 60); do
    code=$(post)
    if [ "$code" = 201 ] && ! grep -qi '^warning:' /tmp/prm-headers.txt && python3 -c 'import json,sys; sys.exit(1 if json.load(open("/tmp/prm-body.json"))["metadata"].get("annotations") else 0)'; then break; fi
    sleep 0.5
  done
done
snapshot >/dev/null
$K get -o json -n prm-params deployment/prm-dep | python3 -c '
import json, sys
now = json.load(sys.stdin)
before = [o for o in json.load(open("/tmp/prm-params-before.json")) if o["kind"] == "Deployment"][0]
assert now["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"], "the Deployment changed while recording"
'
