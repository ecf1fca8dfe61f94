#!/bin/sh
# Records the matchPolicy Equivalent scenario from the real control plane (run from the
# repository root with the real cluster up): a CRD served as v1 and v1beta1, a mutating webhook
# registered for v1beta1 with matchPolicy Equivalent (and one with Exact), a Warn
# ValidatingAdmissionPolicy matching v1beta1; object.yaml is POSTed through v1. The answer (code,
# Warning headers, body) goes to response.json, what the loopback webhook (webhook_server.py)
# received to received.jsonl. Everything is deleted afterwards.
# The hpaq-map-* scenarios are MutatingAdmissionPolicies (no webhook call): their config.yaml
# holds the namespace, the policy and its binding.
#
# With arguments (scenario directories, e.g. $D/hpa-onto), only those are recorded again: their
# reviews are replaced in received.jsonl, the others' kept.
set -eu
D=testdata/admission/realcluster-equivalent
K="$HOME/.cache/realcluster/bin/kubectl --kubeconfig /tmp/realcluster/kubeconfig"
PORT=18453
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout $D/key.pem -out $D/cert.pem 2>/dev/null
if [ $# -gt 0 ]; then
  SCENARIOS="$*"
  for S in $SCENARIOS; do
    touch $D/received.jsonl
    grep -vF "\"path\": \"/$(basename $S)?" $D/received.jsonl > $D/received.jsonl.tmp || true
    mv $D/received.jsonl.tmp $D/received.jsonl
  done
else
  SCENARIOS="$D $D/events $D/hpa $D/hpa-onto $D/hpa-onto-invalid $D/hpa-onto-cpu $D/hpaq-map-v1 $D/hpaq-map-v1-apply $D/hpaq-map-v1-ignore $D/hpaq-map-v2"
  rm -f $D/received.jsonl
fi
python3 $D/webhook_server.py $PORT $D & PID=$!
trap 'kill $PID; rm -f $D/key.pem' EXIT
sleep 1
CA=$(base64 -w0 < $D/cert.pem)
for S in $SCENARIOS; do
sed "s|CABUNDLE|$CA|; s|PORT|$PORT|" $S/config.yaml | $K apply -f -
if [ "$S" = "$D" ]; then $K wait --for=condition=Established crd/gadgets.wp-eq.example.com; fi
sleep 3
python3 - "$S" <<'PY'
import json, ssl, subprocess, sys, urllib.request, urllib.error, os
d = sys.argv[1]
kubectl = [os.path.expanduser("~/.cache/realcluster/bin/kubectl"), "--kubeconfig", "/tmp/realcluster/kubeconfig"]
obj = json.loads(subprocess.run(kubectl + ["create", "--dry-run=client", "-o", "json", "-f", f"{d}/object.yaml"], capture_output=True, text=True, check=True).stdout)
group, version = obj["apiVersion"].split("/")
plural = {"Gadget": "gadgets", "Event": "events", "HorizontalPodAutoscaler": "horizontalpodautoscalers"}[obj["kind"]]
url = f"https://127.0.0.1:6443/apis/{group}/{version}/namespaces/{obj['metadata']['namespace']}/{plural}"
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
sed "s|CABUNDLE|$CA|; s|PORT|$PORT|" $S/config.yaml | $K delete --wait=false -f - || true
done
