#!/usr/bin/env python3
"""Records the admission scenarios under this directory from the real control plane.

Usage (from the repository root, with the real cluster up):
  python3 testdata/admission/realcluster/record.py [scenario ...]

For each scenario directory: applies config.yaml (a namespace labelled wp-admission=<scenario>,
policies restricted to that label, bindings, params) with kubectl, waits until the policies
answer (or 15 s), POSTs object.yaml to the apiserver and writes response.json: HTTP code,
Warning headers and the body. Then it deletes what it created.
"""
import json, os, ssl, subprocess, sys, time, urllib.request, urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))
KUBECTL = os.path.expanduser("~/.cache/realcluster/bin/kubectl")
KUBECONFIG = "/tmp/realcluster/kubeconfig"
SERVER, TOKEN = "https://127.0.0.1:6443", "admintoken"

def kubectl(*args, stdin=None, check=True):
    return subprocess.run([KUBECTL, "--kubeconfig", KUBECONFIG, *args], input=stdin, capture_output=True, text=True, check=check)

def post(obj, dry_run=False):
    ns = obj["metadata"]["namespace"]
    url = f"{SERVER}/api/v1/namespaces/{ns}/configmaps"
    if dry_run:
        url += "?dryRun=All"
    req = urllib.request.Request(url, data=json.dumps(obj).encode(), method="POST",
        headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json", "Accept": "application/json"})
    ctx = ssl._create_unverified_context()
    try:
        with urllib.request.urlopen(req, context=ctx) as r:
            return r.status, r.headers.get_all("Warning") or [], json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get_all("Warning") or [], json.loads(e.read())

def load_yaml(path):
    out = kubectl("create", "--dry-run=client", "-o", "json", "-f", path)
    d = json.loads(out.stdout)
    return d["items"] if d.get("kind") == "List" else [d]

def record(name):
    d = os.path.join(HERE, name)
    cfg = os.path.join(d, "config.yaml")
    obj = load_yaml(os.path.join(d, "object.yaml"))[0]
    if os.path.exists(cfg):
        kubectl("apply", "-f", cfg)
    try:
        baseline = (201, [])
        deadline = time.time() + 15
        while time.time() < deadline:
            code, warns, body = post(obj, dry_run=True)
            if (code, warns) != baseline or body.get("metadata", {}).get("labels") != obj["metadata"].get("labels"):
                break
            time.sleep(0.5)
        time.sleep(1)
        code, warns, body = post(obj)
        with open(os.path.join(d, "response.json"), "w") as f:
            json.dump({"code": code, "warnings": warns, "body": body}, f, indent=2, sort_keys=True)
            f.write("\n")
        print(name, code, warns)
    finally:
        if os.path.exists(cfg):
            kubectl("delete", "--wait=false", "--ignore-not-found", "-f", cfg, check=False)

if __name__ == "__main__":
    names = sys.argv[1:] or sorted(n for n in os.listdir(HERE) if os.path.isdir(os.path.join(HERE, n)))
    for n in names:
        record(n)
