#!/bin/sh
# Records the webhook scenarios from the real control plane (run from the repository root with
# the real cluster up): a loopback HTTPS webhook (webhook_server.py, self-signed certificate for
# 127.0.0.1) behind a MutatingWebhookConfiguration and a ValidatingWebhookConfiguration restricted
# to namespaces labelled wp-admission=<scenario>; for each scenario, object.yaml is POSTed and the
# answer (code, Warning headers, body) written to response.json, and what the webhook received to
# received.jsonl.
set -eu
D=testdata/admission/realcluster-webhook
K="$HOME/.cache/realcluster/bin/kubectl --kubeconfig /tmp/realcluster/kubeconfig"
PORT=18443
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout $D/key.pem -out $D/cert.pem 2>/dev/null
rm -f $D/received.jsonl
python3 $D/webhook_server.py $PORT $D & PID=$!
trap 'kill $PID' EXIT
sleep 1
CA=$(base64 -w0 < $D/cert.pem)
for s in webhook-deny webhook-patch; do
  sed "s|CABUNDLE|$CA|; s|PORT|$PORT|" $D/$s/config.yaml | $K apply -f -
  sleep 2
  python3 - "$D/$s" <<'PY'
import json, ssl, subprocess, sys, urllib.request, urllib.error, os
d = sys.argv[1]
kubectl = [os.path.expanduser("~/.cache/realcluster/bin/kubectl"), "--kubeconfig", "/tmp/realcluster/kubeconfig"]
obj = json.loads(subprocess.run(kubectl + ["create", "--dry-run=client", "-o", "json", "-f", f"{d}/object.yaml"], capture_output=True, text=True, check=True).stdout)
url = f"https://127.0.0.1:6443/api/v1/namespaces/{obj['metadata']['namespace']}/configmaps"
req = urllib.request.Request(url, data=json.dumps(obj).encode(), method="POST",
    headers={"Authorization": "Bearer admintoken", "Content-Type": "application/json", "Accept": "application/json"})
try:
    with urllib.request.urlopen(req, context=ssl._create_unverified_context()) as r:
        code, warns, body = r.status, r.headers.get_all("Warning") or [], json.loads(r.read())
except urllib.error.HTTPError as e:
    code, warns, body = e.code, e.headers.get_all("Warning") or [], json.loads(e.read())
json.dump({"code": code, "warnings": warns, "body": body}, open(f"{d}/response.json", "w"), indent=2, sort_keys=True)
print(d, code, warns)
PY
  sed "s|CABUNDLE|$CA|; s|PORT|$PORT|" $D/$s/config.yaml | $K delete --wait=false -f - || true
done
rm -f $D/key.pem
