#!/usr/bin/env python3
"""Records kubectl 1.37.2's output for the fixture record.py leaves on the real control plane
into kubectl.json: each command's arguments, when it started (microseconds), exit status and
stdout, and when it ended (the server printed at an instant between the two). cluster's
TestKubectlAsRecorded replays steps.json into writepath and runs the same commands against it. Run after record.py: python3 testdata/cluster/table/record_kubectl.py
(kubectl from ~/.cache/realcluster/bin or $KUBECTL; kubeconfig /tmp/realcluster/kubeconfig)."""
import json, os, subprocess, time

here = os.path.dirname(os.path.abspath(__file__))
kubectl = os.environ.get("KUBECTL", os.path.expanduser("~/.cache/realcluster/bin/kubectl"))
kubeconfig = os.environ.get("KUBECONFIG", "/tmp/realcluster/kubeconfig")
commands = [
    ["get", "pods", "-n", "tbl"],
    ["get", "pods", "-n", "tbl", "-o", "wide"],
    ["get", "deploy,sts,ds", "-n", "tbl", "-o", "wide"],
    ["get", "cm,secrets,sa,ep", "-n", "tbl"],
    ["get", "jobs,cronjobs", "-n", "tbl", "-o", "wide"],
    ["get", "widgets", "-n", "tbl"],
    ["get", "widgets", "-n", "tbl", "-o", "wide"],
    ["get", "widgets.example.com/w1", "-n", "tbl", "--subresource", "scale"],
    ["get", "gadgets"],
    ["get", "events", "-n", "tbl", "-o", "wide"],
    ["get", "ingress,netpol,pdb,hpa,leases", "-n", "tbl"],
    ["get", "nodes", "-o", "wide", "-l", "fixture=tbl"],
    ["get", "crd", "widgets.example.com", "gadgets.example.com", "-o", "wide"],
    ["get", "roles,rolebindings", "-n", "tbl", "-o", "wide"],
    ["get", "storageclass", "fast"],
    ["get", "pods", "-n", "tbl", "--show-labels", "-l", "app=web"],
    ["get", "pods", "web", "-n", "tbl", "--subresource", "status"],
]
out = []
for args in commands:
    sent = time.time()
    p = subprocess.run([kubectl, "--kubeconfig", kubeconfig] + args, capture_output=True, text=True)
    done = time.time()
    stamp = lambda t: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%06dZ" % int((t % 1) * 1e6)
    out.append({"args": args, "sent": stamp(sent), "done": stamp(done), "exitCode": p.returncode, "stdout": p.stdout})
json.dump({"source": "kubectl v1.37.2 against kube-apiserver v1.37.2 (../shared/tools/realcluster), python3 testdata/cluster/table/record_kubectl.py", "commands": out},
          open(os.path.join(here, "kubectl.json"), "w"), indent=1)
print(len(out), "commands")
