#!/usr/bin/env python3
"""Records steps.json against the real control plane (../shared/tools/realcluster) into
recorded.json: each step's status, Content-Type, Date and body (JSON as a value, anything else
base64), and when the request was sent (the replay's clock for reads: the Date header may
be a second past the instant the server computed AGE cells). Run: python3 testdata/cluster/table/record.py [KUBECONFIG_DIR=/tmp/realcluster]."""
import base64, json, os, ssl, sys, time, urllib.request, urllib.error

here = os.path.dirname(os.path.abspath(__file__))
server = os.environ.get("REALCLUSTER_SERVER", "https://127.0.0.1:6443")
token = os.environ.get("REALCLUSTER_TOKEN", "admintoken")
ctx = ssl._create_unverified_context()
doc = json.load(open(os.path.join(here, "steps.json")))


def send(method, path, accept="", body=None, content_type="application/json"):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(server + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + token)
    if data is not None:
        req.add_header("Content-Type", content_type)
    if accept:
        req.add_header("Accept", accept)
    try:
        resp = urllib.request.urlopen(req, context=ctx, timeout=30)
    except urllib.error.HTTPError as e:
        resp = e
    raw = resp.read()
    return resp.status if hasattr(resp, "status") else resp.code, resp.headers, raw


# Clean up a previous run: Pods have no kubelet to confirm a graceful deletion, and no
# controller removes the volumes' protection finalizers.
ns = doc["namespace"]


def patch(path, body):
    req = urllib.request.Request(server + path, data=json.dumps(body).encode(), method="PATCH")
    req.add_header("Authorization", "Bearer " + token)
    req.add_header("Content-Type", "application/merge-patch+json")
    try:
        urllib.request.urlopen(req, context=ctx, timeout=30).read()
    except urllib.error.HTTPError:
        pass


for p in [f"/api/v1/namespaces/{ns}/persistentvolumeclaims/data", "/api/v1/persistentvolumes/pv1"]:
    patch(p, {"metadata": {"finalizers": None}})
send("DELETE", f"/api/v1/namespaces/{ns}/pods?gracePeriodSeconds=0")
for p in [f"/api/v1/namespaces/{ns}", "/api/v1/persistentvolumes/pv1", "/api/v1/nodes/n1", "/apis/storage.k8s.io/v1/storageclasses/fast",
          "/apis/scheduling.k8s.io/v1/priorityclasses/high", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com",
          "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com",
          "/apis/networking.k8s.io/v1/ingressclasses/nginx", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/tbl-view",
          "/apis/storage.k8s.io/v1/csidrivers/tbl.csi.example.com", "/apis/node.k8s.io/v1/runtimeclasses/tbl-gvisor",
          "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/tbl-hooks",
          "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/tbl-binding",
          "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/tbl-policy",
          "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/tbl-fs", "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/tbl-pl"]:
    send("DELETE", p)
for _ in range(120):
    if all(send("GET", p)[0] == 404 for p in [f"/api/v1/namespaces/{ns}", "/api/v1/persistentvolumes/pv1",
                                               "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com",
                                               "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com"]):
        break
    send("DELETE", f"/api/v1/namespaces/{ns}/pods?gracePeriodSeconds=0")
    time.sleep(1)

out = []
for s in doc["steps"]:
    sent = time.time()
    code, headers, raw = send(s["method"], s["path"], s.get("accept", ""), s.get("body"), s.get("contentType", "application/json"))
    ct = headers.get("Content-Type", "")
    rec = {"name": s["name"], "code": code, "contentType": ct, "date": headers.get("Date", ""),
           "sent": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sent)) + ".%06dZ" % int((sent % 1) * 1e6)}
    try:
        rec["body"] = json.loads(raw)
    except Exception:
        rec["bodyBase64"] = base64.b64encode(raw).decode()
    out.append(rec)
    print(code, s["name"], file=sys.stderr)
    if s.get("sleep"):
        time.sleep(s["sleep"])
json.dump({"source": "kube-apiserver v1.37.2 (../shared/tools/realcluster), python3 testdata/cluster/table/record.py", "responses": out},
          open(os.path.join(here, "recorded.json"), "w"), indent=1, sort_keys=True)
