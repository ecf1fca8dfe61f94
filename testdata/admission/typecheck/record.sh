#!/usr/bin/env bash
# Records what the real kube-apiserver 1.37 answers for the ValidatingAdmissionPolicies here.
#
# rejected.yaml: policies whose expressions do not compile against the declared types of request
# and namespaceObject (or whose messageExpression uses authorizer, which it does not declare); each
# is created alone and the apiserver's refusal (kubectl's stderr: the 422 message listing every
# expression's compile error) is saved to rejected-<name>.json.
#
# policies.yaml: policies with type errors against built-in kinds that compile in the dynamic
# environment, so the apiserver accepts them (accepted.json records that). Their
# status.typeChecking would be written by kube-controller-manager's
# validatingadmissionpolicy-status controller, which the shared cluster does not run
# (--controllers=garbagecollector,namespace,deployment,replicaset): if it does, the script saves
# the policies with their status to status-<name>.json. The expected warnings of each policy are
# the reference TypeChecker's (conformance/admission, TestTypeCheckGoldens).
#
# Run from this directory:
#   KUBECONFIG=/tmp/realcluster/kubeconfig KUBECTL=~/.cache/realcluster/bin/kubectl ./record.sh
set -euo pipefail
KUBECTL=${KUBECTL:-kubectl}
python3 - "$KUBECTL" <<'PY'
import json, re, subprocess, sys, time
kubectl = sys.argv[1]

def docs(path):
    return [d for d in open(path).read().split("\n---\n")]

def name(doc):
    return re.search(r"name: (admission-tc-[a-z0-9-]+)", doc).group(1)

for d in docs("rejected.yaml"):
    r = subprocess.run([kubectl, "create", "-f", "-", "-o", "json"], input=d, capture_output=True, text=True)
    if r.returncode == 0:
        subprocess.run([kubectl, "delete", "validatingadmissionpolicy", name(d)], capture_output=True)
        sys.exit("%s was not refused" % name(d))
    with open("rejected-%s.json" % name(d), "w") as f:
        json.dump({"stderr": r.stderr}, f, indent=2, sort_keys=True)
        f.write("\n")

accepted = {}
names = []
for d in docs("policies.yaml"):
    r = subprocess.run([kubectl, "create", "-f", "-", "-o", "json"], input=d, capture_output=True, text=True)
    accepted[name(d)] = r.returncode == 0 and "" or r.stderr
    if r.returncode == 0:
        names.append(name(d))
with open("accepted.json", "w") as f:
    json.dump(accepted, f, indent=2, sort_keys=True)
    f.write("\n")
try:
    for n in names:
        for _ in range(20):
            p = json.loads(subprocess.run([kubectl, "get", "validatingadmissionpolicy", n, "-o", "json"],
                                          capture_output=True, text=True, check=True).stdout)
            if p.get("status", {}).get("observedGeneration") == p["metadata"]["generation"]:
                with open("status-%s.json" % n, "w") as f:
                    json.dump({"spec": p["spec"], "status": p["status"]}, f, indent=2, sort_keys=True)
                    f.write("\n")
                break
            time.sleep(1)
finally:
    for n in names:
        subprocess.run([kubectl, "delete", "validatingadmissionpolicy", n], capture_output=True)
PY
