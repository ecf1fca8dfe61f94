#!/usr/bin/env python3
"""Records how the real kube-apiserver 1.37 treats metadata around admission.

Usage (from the repository root, with the real cluster up):
  python3 testdata/admission/objectmeta/record.py

Each case creates what it needs in namespace wp-adm-objectmeta (a ConfigMap cm1, a ClusterRole
wp-adm-objectmeta-*), reads the stored object back when the request is an update, sends one
request and writes cases/<name>.json: the method, the request path's namespace, the resource,
the body sent, the stored object (updates), and the HTTP code and body the apiserver answered.
It deletes what it created. No admission configuration is installed: only the registry's own
steps answer.
"""
import copy, json, os, ssl, subprocess, sys, urllib.request, urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))
KUBECTL = os.path.expanduser("~/.cache/realcluster/bin/kubectl")
KUBECONFIG = "/tmp/realcluster/kubeconfig"
SERVER, TOKEN = "https://127.0.0.1:6443", "admintoken"
NS = "wp-adm-objectmeta"
CTX = ssl._create_unverified_context()

def kubectl(*args, check=True):
    return subprocess.run([KUBECTL, "--kubeconfig", KUBECONFIG, *args], capture_output=True, text=True, check=check)

def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(SERVER + path, data=data, method=method,
        headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, context=CTX) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())

CM = "/api/v1/namespaces/%s/configmaps" % NS
CR = "/apis/rbac.authorization.k8s.io/v1/clusterroles"

def cm(md=None):
    m = {"name": "cm1", "namespace": NS}
    m.update(md or {})
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {k: v for k, v in m.items() if v is not None}, "data": {"a": "1"}}

def create_cm():
    call("DELETE", CM + "/cm1")
    code, body = call("POST", CM, cm())
    assert code == 201, body
    return body

def updated(stored, **md):
    """The stored ConfigMap with metadata changes (None removes a field) and new data."""
    o = copy.deepcopy(stored)
    o["data"] = {"a": "2"}
    for k, v in md.items():
        if v is None:
            o["metadata"].pop(k, None)
        else:
            o["metadata"][k] = v
    return o

two_controllers = [
    {"apiVersion": "apps/v1", "kind": "Deployment", "name": "a", "uid": "u1", "controller": True},
    {"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u2", "controller": True, "blockOwnerDeletion": False},
]

CASES = {
    # create
    "create-namespace-mismatch": lambda: ("POST", CM, cm({"namespace": "other"}), None),
    "create-namespace-from-request": lambda: ("POST", CM, cm({"namespace": None}), None),
    "create-cluster-scoped-namespace-cleared": lambda: ("POST", CR, {"apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole", "metadata": {"name": NS + "-r1", "namespace": "x"}}, None),
    "create-owner-references": lambda: ("POST", CM, cm({"ownerReferences": two_controllers}), None),
    # update (the stored object is read back first)
    "update-namespace-mismatch": lambda: ("PUT", CM + "/cm1", None, dict(namespace="other")),
    "update-stale-resource-version": lambda: ("PUT", CM + "/cm1", None, dict(resourceVersion="1")),
    "update-system-fields-kept": lambda: ("PUT", CM + "/cm1", None,
        dict(resourceVersion=None, uid=None, creationTimestamp=None, generation=9)),
    "update-new-deletion-timestamp": lambda: ("PUT", CM + "/cm1", None, dict(deletionTimestamp="2026-01-01T00:00:00Z")),
    "update-new-grace-period": lambda: ("PUT", CM + "/cm1", None, dict(deletionGracePeriodSeconds=30)),
    "update-name-mismatch": lambda: ("PUT", CM + "/cm1", None, dict(name="cm2")),
    "update-invalid-label": lambda: ("PUT", CM + "/cm1", None, dict(labels={"a/b/c": "x"})),
    "update-invalid-finalizer": lambda: ("PUT", CM + "/cm1", None, dict(finalizers=["Bad/f!", "orphan", "foregroundDeletion"])),
    "update-invalid-generate-name": lambda: ("PUT", CM + "/cm1", None, dict(generateName="Bad_")),
    "update-uid-changed": lambda: ("PUT", CM + "/cm1", None, dict(uid="00000000-0000-0000-0000-000000000001")),
}

def record(name):
    method, path, body, md = CASES[name]()
    stored = None
    if method == "PUT":
        stored = create_cm()
        body = updated(stored, **md)
    else:
        call("DELETE", CM + "/cm1")
        call("DELETE", CR + "/" + NS + "-r1")
    code, resp = call(method, path, body)
    ns = NS if "/namespaces/" in path else ""
    out = {"name": name, "method": method, "namespace": ns,
           "resource": "clusterroles" if path.startswith(CR) else "configmaps",
           "body": body, "stored": stored, "code": code, "response": resp}
    os.makedirs(os.path.join(HERE, "cases"), exist_ok=True)
    with open(os.path.join(HERE, "cases", name + ".json"), "w") as f:
        json.dump(out, f, indent=2, sort_keys=True)
        f.write("\n")
    print(name, code, resp.get("message", ""))

if __name__ == "__main__":
    kubectl("create", "namespace", NS, check=False)
    try:
        for n in sys.argv[1:] or sorted(CASES):
            record(n)
    finally:
        call("DELETE", CM + "/cm1")
        call("DELETE", CR + "/" + NS + "-r1")
        kubectl("delete", "namespace", NS, "--wait=false", check=False)
