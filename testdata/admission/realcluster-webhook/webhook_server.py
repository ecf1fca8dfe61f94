#!/usr/bin/env python3
"""A loopback admission webhook for record.py: HTTPS on 127.0.0.1:PORT with cert.pem/key.pem.

Paths: /deny answers allowed=false with a status (code 403, message naming the object) and a
warning; /patch answers allowed=true with a base64 JSON Patch adding a label, a warning and an
audit annotation. Every AdmissionReview received is appended to received.jsonl.
"""
import base64, json, ssl, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

HERE = sys.argv[2]

class H(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        review = json.loads(body)
        with open(f"{HERE}/received.jsonl", "a") as f:
            f.write(json.dumps({"path": self.path, "review": review}, sort_keys=True) + "\n")
        req = review["request"]
        name = req.get("name") or req["object"]["metadata"].get("name", "")
        if self.path.startswith("/deny"):
            resp = {"uid": req["uid"], "allowed": False, "warnings": ["checked by the deny hook"],
                    "status": {"code": 403, "message": f"configmap {name} is not welcome"}}
        else:
            patch = [{"op": "add", "path": "/metadata/labels", "value": {"patched-by": "wp-adm-webhook"}}]
            resp = {"uid": req["uid"], "allowed": True, "warnings": ["patched by the patch hook"],
                    "patchType": "JSONPatch", "patch": base64.b64encode(json.dumps(patch).encode()).decode(),
                    "auditAnnotations": {"seen": name}}
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
