#!/usr/bin/env python3
"""Records how kube-apiserver 1.37 defaults objects after mutating admission.

Run from the repository root with the real cluster up:

    python3 testdata/admission/realcluster-defaulting/record.py [scenario ...]

A loopback HTTPS webhook (this process, 127.0.0.1:18473, self-signed certificate for 127.0.0.1
made here; the key is deleted afterwards) answers the webhooks of each scenario by the path it is
called on (/<scenario>/<action>, see ACTIONS) and appends every AdmissionReview it receives to
<scenario>/received.jsonl. For each scenario the script writes <scenario>/config.yaml (namespace
dflt-<scenario> labelled dflt=<scenario>, which every webhook's and policy's namespaceSelector
requires; CABUNDLE and PORT are filled in when applying) and <scenario>/object.yaml, applies the
configuration, POSTs the object with dryRun=All (nothing is stored) and writes the HTTP code, the
Warning headers and the body to <scenario>/response.json; then deletes what it created.
"""
import base64, json, os, ssl, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = 18473
KUBECTL = [os.path.expanduser("~/.cache/realcluster/bin/kubectl"), "--kubeconfig", "/tmp/realcluster/kubeconfig"]
APISERVER = "https://127.0.0.1:6443"

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  namespace: dflt-{s}
  labels: {{app: d}}
spec:
  selector: {{matchLabels: {{app: d}}}}
  strategy: {{type: Recreate}}
  template:
    metadata: {{labels: {{app: d}}}}
    spec:
      containers: [{{name: app, image: "app:1"}}]
"""

GADGET = """apiVersion: dflt.example.com/v1
kind: Gadget
metadata:
  name: g
  namespace: dflt-{s}
  labels: {{app: g}}
spec: {{mode: slow}}
"""

CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata: {{name: cm, namespace: dflt-{s}, labels: {{app: cm}}}}
data: {{a: "1"}}
"""

EVENT = """apiVersion: v1
kind: Event
metadata: {{name: e1, namespace: dflt-{s}}}
involvedObject: {{kind: Pod, name: p, namespace: dflt-{s}}}
reason: Tested
message: hello
type: Normal
"""

CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.dflt.example.com}
spec:
  group: dflt.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              mode: {type: string, default: fast}
              parts:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    size: {type: integer, default: 3}
"""


def webhook(s, config, action, resource, group="apps", reinvoke="Never"):
    return f"""apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {{name: dflt-{s}-{config}}}
webhooks:
- name: {action}.dflt.example.com
  clientConfig: {{url: "https://127.0.0.1:PORT/{s}/{action}", caBundle: CABUNDLE}}
  rules: [{{apiGroups: ["{group}"], apiVersions: ["v1"], operations: [CREATE], resources: [{resource}]}}]
  namespaceSelector: {{matchLabels: {{dflt: {s}}}}}
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: 5
  reinvocationPolicy: {reinvoke}
"""


def policy(s, patch_type, body):
    return f"""apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {{name: dflt-{s}}}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    namespaceSelector: {{matchLabels: {{dflt: {s}}}}}
    resourceRules: [{{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}}]
  mutations:
  - patchType: {patch_type}
    {body}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {{name: dflt-{s}}}
spec: {{policyName: dflt-{s}}}
"""


# scenario: (configuration documents after the namespace, object, resource path)
def scenarios():
    out = {}
    s = "webhook-sidecar"
    out[s] = ([webhook(s, "a", "sidecar", "deployments", reinvoke="IfNeeded"), webhook(s, "b", "label", "deployments")],
              DEPLOYMENT, "apis/apps/v1", "deployments")
    s = "webhook-strategy"
    out[s] = ([webhook(s, "a", "strategy", "deployments"), webhook(s, "b", "label", "deployments")],
              DEPLOYMENT, "apis/apps/v1", "deployments")
    s = "webhook-badvalue"
    out[s] = ([webhook(s, "a", "badvalue", "deployments")], DEPLOYMENT, "apis/apps/v1", "deployments")
    s = "webhook-crd"
    out[s] = ([CRD, webhook(s, "a", "parts", "gadgets", group="dflt.example.com"), webhook(s, "b", "label", "gadgets", group="dflt.example.com")],
              GADGET, "apis/dflt.example.com/v1", "gadgets")
    s = "webhook-crd-nokind"
    out[s] = ([CRD, webhook(s, "a", "nokind", "gadgets", group="dflt.example.com")], GADGET, "apis/dflt.example.com/v1", "gadgets")
    s = "map-jsonpatch"
    out[s] = ([policy(s, "JSONPatch", """jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: {"name": "sidecar", "image": "busybox:1"}}, JSONPatch{op: "remove", path: "/spec/strategy"}]'"""),
               webhook(s, "b", "label", "deployments")], DEPLOYMENT, "apis/apps/v1", "deployments")
    s = "map-apply"
    out[s] = ([policy(s, "ApplyConfiguration", """applyConfiguration:
      expression: 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "sidecar", image: "busybox"}]}}}}'"""),
               webhook(s, "b", "label", "deployments")], DEPLOYMENT, "apis/apps/v1", "deployments")
    s = "map-unknown"
    out[s] = ([policy(s, "JSONPatch", """jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/spec/bogus", value: 1}]'""")], DEPLOYMENT, "apis/apps/v1", "deployments")
    s = "map-quantity"
    out[s] = ([policy(s, "ApplyConfiguration", """applyConfiguration:
      expression: 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "app", resources: Object.spec.template.spec.containers.resources{limits: {"cpu": "lots"}}}]}}}}'""")],
              DEPLOYMENT, "apis/apps/v1", "deployments")
    s = "map-equivalent"
    out[s] = ([f"""apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {{name: dflt-{s}}}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    matchPolicy: Equivalent
    namespaceSelector: {{matchLabels: {{dflt: {s}}}}}
    resourceRules: [{{apiGroups: [events.k8s.io], apiVersions: [v1], operations: [CREATE], resources: [events]}}]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{{op: "add", path: "/metadata/labels", value: {{"first": object.apiVersion.replace("/", ".")}}}}]'
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{{op: "add", path: "/metadata/labels/second", value: object.apiVersion.replace("/", ".") + "-" + (has(object.note) ? "note" : "nonote") + "-" + (has(object.message) ? "message" : "nomessage")}}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {{name: dflt-{s}}}
spec: {{policyName: dflt-{s}}}
"""], EVENT, "api/v1", "events")
    s = "warnings"
    out[s] = ([webhook(s, "a", "warn", "configmaps", group="")], CONFIGMAP, "api/v1", "configmaps")
    return out


def containers(obj):
    return obj.get("spec", {}).get("template", {}).get("spec", {}).get("containers") or []


# action: AdmissionRequest -> (JSON Patch or None, warnings)
ACTIONS = {
    # Adds a container without imagePullPolicy, terminationMessagePath or resources, once.
    "sidecar": lambda r: (None if any(c.get("name") == "sidecar" for c in containers(r["object"])) else
                          [{"op": "add", "path": "/spec/template/spec/containers/-", "value": {"name": "sidecar", "image": "busybox"}}], []),
    # Adds a label, once (a later mutation that other webhooks see).
    "label": lambda r: (None if "dflt-seen" in (r["object"]["metadata"].get("labels") or {}) else
                        [{"op": "add", "path": "/metadata/labels/dflt-seen", "value": "yes"}], []),
    # Removes the strategy (Recreate in the request): defaulting brings RollingUpdate 25% back.
    "strategy": lambda r: ([{"op": "remove", "path": "/spec/strategy"}], []),
    # A value the Go type cannot hold.
    "badvalue": lambda r: ([{"op": "replace", "path": "/spec/replicas", "value": "3"}], []),
    # A custom resource's parts without their defaulted size, and its mode removed.
    "parts": lambda r: ([{"op": "add", "path": "/spec/parts", "value": [{"name": "a"}]}, {"op": "remove", "path": "/spec/mode"}], []),
    # A custom resource without its kind.
    "nokind": lambda r: ([{"op": "remove", "path": "/kind"}], []),
    # Repeated, empty, unwritable and long warnings: 3 + 16 x 304 runes, past the 4096 limit.
    "warn": lambda r: (None, ["dup", "dup", "", "line\nbreak"] + ["w%02d " % i + "x" * 300 for i in range(16)] + ["dup", "tail"]),
}


class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        review = json.loads(body)
        path = self.path.split("?")[0]
        _, scenario, action = path.split("/")
        with LOCK:
            with open(os.path.join(HERE, scenario, "received.jsonl"), "a") as f:
                f.write(json.dumps({"path": path, "review": review}, sort_keys=True) + "\n")
        req = review["request"]
        patch, warnings = ACTIONS[action](req)
        resp = {"uid": req["uid"], "allowed": True}
        if warnings:
            resp["warnings"] = warnings
        if patch is not None:
            resp["patchType"] = "JSONPatch"
            resp["patch"] = base64.b64encode(json.dumps(patch).encode()).decode()
        out = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *a):
        pass


LOCK = threading.Lock()


def kubectl(args, stdin=None, check=True):
    return subprocess.run(KUBECTL + args, input=stdin, capture_output=True, text=True, check=check)


def post(api, resource, obj):
    ns = obj["metadata"]["namespace"]
    url = f"{APISERVER}/{api}/namespaces/{ns}/{resource}?dryRun=All"
    req = urllib.request.Request(url, data=json.dumps(obj).encode(), method="POST",
                                 headers={"Authorization": "Bearer admintoken", "Content-Type": "application/json", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, context=ssl._create_unverified_context()) as r:
            return r.status, r.headers.get_all("Warning") or [], json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get_all("Warning") or [], json.loads(e.read())


def main():
    cert, key = os.path.join(HERE, "cert.pem"), os.path.join(HERE, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert], check=True, capture_output=True)
    srv = ThreadingHTTPServer(("127.0.0.1", PORT), Hook)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    ca = base64.b64encode(open(cert, "rb").read()).decode()
    all_scenarios = scenarios()
    chosen = sys.argv[1:] or list(all_scenarios)
    try:
        for s in chosen:
            docs, obj_yaml, api, resource = all_scenarios[s]
            d = os.path.join(HERE, s)
            os.makedirs(d, exist_ok=True)
            ns = f"apiVersion: v1\nkind: Namespace\nmetadata: {{name: dflt-{s}, labels: {{dflt: {s}}}}}\n"
            config = "---\n".join([ns] + docs)
            open(os.path.join(d, "config.yaml"), "w").write(config)
            open(os.path.join(d, "object.yaml"), "w").write(obj_yaml.format(s=s))
            if os.path.exists(os.path.join(d, "received.jsonl")):
                os.remove(os.path.join(d, "received.jsonl"))
            filled = config.replace("CABUNDLE", ca).replace("PORT", str(PORT))
            kubectl(["apply", "-f", "-"], stdin=filled)
            if "CustomResourceDefinition" in config:
                kubectl(["wait", "--for=condition=Established", "crd/gadgets.dflt.example.com", "--timeout=60s"])
            time.sleep(3)
            obj = json.loads(kubectl(["create", "--dry-run=client", "-o", "json", "-f", os.path.join(d, "object.yaml")]).stdout)
            code, warns, body = post(api, resource, obj)
            json.dump({"code": code, "warnings": warns, "body": body}, open(os.path.join(d, "response.json"), "w"), indent=2, sort_keys=True)
            print(s, code, len(warns), "warnings")
            # Delete everything but the CRD (shared), then the CRD at the end.
            rest = "---\n".join([ns] + [x for x in docs if "CustomResourceDefinition" not in x])
            kubectl(["delete", "--wait=false", "--ignore-not-found", "-f", "-"], stdin=rest.replace("CABUNDLE", ca).replace("PORT", str(PORT)), check=False)
    finally:
        kubectl(["delete", "--ignore-not-found", "crd/gadgets.dflt.example.com", "--wait=false"], check=False)
        srv.shutdown()
        os.remove(key)


if __name__ == "__main__":
    main()
