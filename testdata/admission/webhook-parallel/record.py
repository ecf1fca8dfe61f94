#!/usr/bin/env python3
"""Records how the real kube-apiserver 1.37 calls several validating webhooks for one request.

Usage (from the repository root, with the real cluster up and openssl on PATH):
  python3 testdata/admission/webhook-parallel/record.py

A threaded loopback HTTPS webhook server (127.0.0.1:18444, a self-signed certificate made here,
its key deleted afterwards) answers by path:
  /slow-deny  after 2 s: allowed=false, message "slow says no", warning "warning from slow"
  /fast-deny  at once:   allowed=false, message "fast says no", warning "warning from fast"
  /hang       after 4 s (the webhook's timeoutSeconds is 1, failurePolicy Ignore)
  /warn       after 0.5 s: allowed=true, warning "warning from warn"
config.yaml (CABUNDLE and PORT filled in) holds four ValidatingWebhookConfigurations, named so
that the slow one comes first in the apiserver's order, restricted to namespace
wp-adm-parallel. object.yaml is POSTed once; response.json gets the HTTP code, the Warning
headers in order, the body and the seconds the request took; answers.jsonl gets, for each
webhook call, the path, the AdmissionReview response sent and the seconds after the first call
at which it was sent.
"""
import base64, json, os, ssl, subprocess, sys, threading, time, urllib.request, urllib.error
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
KUBECTL = [os.path.expanduser("~/.cache/realcluster/bin/kubectl"), "--kubeconfig", "/tmp/realcluster/kubeconfig"]
PORT = 18444
ANSWERS = []
LOCK = threading.Lock()
START = [None]

BEHAVIOUR = {
    "/slow-deny": (2.0, False, "slow says no", "warning from slow"),
    "/fast-deny": (0.0, False, "fast says no", "warning from fast"),
    "/hang": (4.0, True, "", ""),
    "/warn": (0.5, True, "", "warning from warn"),
}

class H(BaseHTTPRequestHandler):
    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with LOCK:
            if START[0] is None:
                START[0] = time.monotonic()
        delay, allowed, msg, warn = BEHAVIOUR[self.path.split("?")[0]]
        time.sleep(delay)
        resp = {"uid": review["request"]["uid"], "allowed": allowed}
        if warn:
            resp["warnings"] = [warn]
        if msg:
            resp["status"] = {"code": 403, "message": msg}
        out = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        except OSError:
            pass  # the apiserver gave up (timeout)
        with LOCK:
            ANSWERS.append({"path": self.path.split("?")[0], "response": resp,
                            "sentAfter": round(time.monotonic() - START[0], 2)})

    def log_message(self, *a):
        pass

def main():
    cert, key = os.path.join(HERE, "cert.pem"), os.path.join(HERE, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert], check=True, capture_output=True)
    srv = ThreadingHTTPServer(("127.0.0.1", PORT), H)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    ca = base64.b64encode(open(cert, "rb").read()).decode()
    cfg = open(os.path.join(HERE, "config.yaml")).read().replace("CABUNDLE", ca).replace("PORT", str(PORT))
    subprocess.run(KUBECTL + ["apply", "-f", "-"], input=cfg, text=True, check=True, capture_output=True)
    try:
        time.sleep(3)
        obj = json.loads(subprocess.run(KUBECTL + ["create", "--dry-run=client", "-o", "json", "-f", os.path.join(HERE, "object.yaml")],
                                        capture_output=True, text=True, check=True).stdout)
        url = "https://127.0.0.1:6443/api/v1/namespaces/%s/configmaps" % obj["metadata"]["namespace"]
        req = urllib.request.Request(url, data=json.dumps(obj).encode(), method="POST",
            headers={"Authorization": "Bearer admintoken", "Content-Type": "application/json", "Accept": "application/json"})
        t0 = time.monotonic()
        try:
            with urllib.request.urlopen(req, context=ssl._create_unverified_context()) as r:
                code, warns, body = r.status, r.headers.get_all("Warning") or [], json.loads(r.read())
        except urllib.error.HTTPError as e:
            code, warns, body = e.code, e.headers.get_all("Warning") or [], json.loads(e.read())
        took = round(time.monotonic() - t0, 2)
        time.sleep(3.5)  # let the hanging handler finish
        with open(os.path.join(HERE, "response.json"), "w") as f:
            json.dump({"code": code, "warnings": warns, "body": body, "seconds": took}, f, indent=2, sort_keys=True)
            f.write("\n")
        with open(os.path.join(HERE, "answers.jsonl"), "w") as f:
            for a in sorted(ANSWERS, key=lambda a: a["sentAfter"]):
                f.write(json.dumps(a, sort_keys=True) + "\n")
        print(code, warns, body.get("message"), took)
    finally:
        subprocess.run(KUBECTL + ["delete", "--wait=false", "-f", "-"], input=cfg, text=True, capture_output=True)
        srv.shutdown()
        os.remove(key)

if __name__ == "__main__":
    main()
