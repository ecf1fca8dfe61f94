#!/usr/bin/env bash
# Sends each patch of cases.json to the real kube-apiserver 1.37 (kubectl patch on a fresh copy of
# configmap.yaml) and writes what came back to responses.json: the Status body of a failure, the
# patched object's data/finalizers on success, or "stream-reset" when the server panicked and
# reset the HTTP/2 stream. Run from this directory; needs the lead's cluster.
set -euo pipefail
K="${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl} --kubeconfig ${KUBECONFIG_FILE:-/tmp/realcluster/kubeconfig}"
$K create namespace patch-probe --dry-run=client -o yaml | $K apply -f - >/dev/null
python3 - "$K" <<'PY'
import json, subprocess, sys
k = sys.argv[1].split()
out = []
for c in json.load(open("cases.json")):
    # a case may leave finalizers: drop them so that the delete completes
    subprocess.run(k + ["-n", "patch-probe", "patch", "configmap", "probe", "--type", "merge", "-p", '{"metadata":{"finalizers":null}}'], capture_output=True)
    subprocess.run(k + ["-n", "patch-probe", "delete", "configmap", "probe", "--ignore-not-found"], check=True, capture_output=True)
    subprocess.run(k + ["create", "-f", "configmap.yaml"], check=True, capture_output=True)
    p = subprocess.run(k + ["-n", "patch-probe", "patch", "configmap", "probe", "--type", c["type"], "-p", c["patch"], "-v=8"],
                       capture_output=True, text=True)
    lines = p.stderr.splitlines()
    bodies = []
    for i, l in enumerate(lines):
        if '"Response Body"' not in l:
            continue
        if l.rstrip().endswith("body=<"):
            bodies.append(lines[i + 1].strip())
        else:
            bodies.append(json.loads(l[l.index("body=") + 5:]))
    resp = None
    if "INTERNAL_ERROR" in p.stderr:
        resp = "stream-reset"
    elif bodies:
        body = json.loads(bodies[-1])
        if body.get("kind") == "Status":
            resp = {"code": body["code"], "reason": body.get("reason", ""), "message": body["message"]}
        else:
            resp = {"data": body.get("data"), "finalizers": body["metadata"].get("finalizers")}
    out.append({"name": c["name"], "response": resp})
json.dump(out, open("responses.json", "w"), indent=1, sort_keys=True)
open("responses.json", "a").write("\n")
PY
