#!/usr/bin/env bash
# Records how the real kube-apiserver 1.37 answers the legacy discovery paths by Accept (status,
# Content-Type, body), for cluster's TestLegacyDiscoveryNegotiation. Run from this directory
# against a fresh apiserver (token admintoken, as up.sh configures it):
#
#   bash ../../../../shared/tools/realcluster/up.sh && PORT=6443 ./record-legacy.sh
#
# Recorded 2026-12-03 against kube-apiserver v1.37.2 started with up.sh's flags on port 16443.
set -euo pipefail
PORT=${PORT:-6443}
base=https://127.0.0.1:$PORT
python3 - "$base" > legacy-discovery.json <<'PY'
import json, ssl, sys, urllib.request
base = sys.argv[1]
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
cases = []
for path in ["/api", "/apis", "/api/v1", "/apis/apps", "/apis/apps/v1", "/apis/nope", "/apis/apps/v9"]:
    for accept in ["text/plain", "application/yaml", "application/json;as=Table;g=meta.k8s.io;v=v1"]:
        req = urllib.request.Request(base + path, headers={"Authorization": "Bearer admintoken", "Accept": accept, "User-Agent": "record-legacy"})
        try:
            resp = urllib.request.urlopen(req, context=ctx); code = resp.status
        except urllib.error.HTTPError as e:
            resp = e; code = e.code
        body = resp.read().decode()
        cases.append({"path": path, "accept": accept, "code": code, "contentType": resp.headers.get("Content-Type"), "body": body})
json.dump(cases, sys.stdout, indent=1, sort_keys=True)
PY
