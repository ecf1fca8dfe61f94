#!/usr/bin/env python3
"""The loopback webhook of record.sh: HTTPS on 127.0.0.1:PORT with cert.pem/key.pem. It
answers allowed=true with a JSON Patch setting metadata.labels.seen to the version of the
object it was sent (at /hpa-onto-cpu also removing spec.targetCPUUtilizationPercentage), and appends every AdmissionReview to received.jsonl."""
import base64, json, ssl, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

HERE = sys.argv[2]

class H(BaseHTTPRequestHandler):
    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with open(f"{HERE}/received.jsonl", "a") as f:
            f.write(json.dumps({"path": self.path, "review": review}, sort_keys=True) + "\n")
        req = review["request"]
        obj = req["object"]
        labels = dict(obj["metadata"].get("labels") or {})
        labels["seen"] = obj["apiVersion"].split("/")[-1]
        patch = [{"op": "add", "path": "/metadata/labels", "value": labels}]
        if self.path.startswith("/hpa-onto-cpu?"):
            # hpa-onto-cpu: the webhook also removes v1's CPU target.
            patch.append({"op": "remove", "path": "/spec/targetCPUUtilizationPercentage"})
        resp = {"uid": req["uid"], "allowed": True, "patchType": "JSONPatch",
                "patch": base64.b64encode(json.dumps(patch).encode()).decode()}
        out = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *a):
        pass

srv = HTTPServer(("127.0.0.1", int(sys.argv[1])), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(f"{HERE}/cert.pem", f"{HERE}/key.pem")
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
