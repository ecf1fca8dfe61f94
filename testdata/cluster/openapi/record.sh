#!/usr/bin/env bash
# Records what a real kube-apiserver 1.37 (../shared/tools/realcluster, up.sh, default flags) serves
# as OpenAPI and aggregated discovery, for cluster's openapi and discovery tests:
#   - ../../../cluster/data/openapi/v2.json.gz        /openapi/v2 (JSON) with no CRDs: served by cluster
#   - ../../../cluster/data/openapi/v3-other/<path>.json.gz every non-group-version path of /openapi/v3
#     (api, apis, apis/<group>, version, ...) with no CRDs: served by cluster
#   - headers.txt                                     response headers of each endpoint (curl -i)
#   - crd-v3/<path>.json                              /openapi/v3 documents of the CRDs in crds.yaml
#   - crd-v2.json                                     the CRDs' paths and definitions in /openapi/v2,
#                                                     with the shared parameters they refer to
#   - ../../../cluster/data/openapi/crd-v3-definitions.json.gz the meta definitions beside the
#                                                     CRDs' kinds in their v3 documents (served by cluster)
#   - discovery-*.json                                aggregated discovery (v2, v2beta1) with the CRDs
# Run from this directory against a fresh apiserver (token admintoken, as up.sh configures it;
# the controller manager is not needed):
#
#   bash ../../../../shared/tools/realcluster/up.sh && PORT=6443 ./record.sh
#
# Recorded 2026-12-03 against kube-apiserver v1.37.2 started with up.sh's flags on port 16443.
set -euo pipefail
PORT=${PORT:-6443}
base=https://127.0.0.1:$PORT
c() { curl -sk -H "Authorization: Bearer admintoken" "$@"; }
data=${DATA:-../../../cluster/data/openapi}
sortjson() { python3 -c 'import json,sys; json.dump(json.load(sys.stdin), sys.stdout, sort_keys=True)'; }

: > headers.txt
hdr() { # hdr NAME ACCEPT PATH
  { echo "### $1: GET $3 (Accept: $2)"; c -o /dev/null -D - -H "Accept: $2" "$base$3" | tr -d '\r' | grep -iv '^date:\|^audit-id:\|^x-kubernetes-pf-'; } >> headers.txt
}

# Built-in documents (no CRDs yet).
c -H 'Accept: application/json' "$base/openapi/v2" | sortjson | gzip -9n > "$data/v2.json.gz"
c "$base/openapi/v3" | sortjson > /tmp/openapi-v3-index.json
for p in $(python3 -c 'import json; print(" ".join(json.load(open("/tmp/openapi-v3-index.json"))["paths"]))'); do
  case "$p" in api/v1|apis/*/*) continue ;; esac # the group versions: record-openapi.sh in data/openapi/v3
  c "$base/openapi/v3/$p" | sortjson | gzip -9n > "$data/v3-other/${p//\//__}.json.gz"
done
hdr v3-index 'application/json' /openapi/v3
url=$(python3 -c 'import json; print(json.load(open("/tmp/openapi-v3-index.json"))["paths"]["apis/apps/v1"]["serverRelativeURL"])')
hdr v3-hash 'application/json' "$url"
hdr v3-nohash 'application/json' /openapi/v3/apis/apps/v1
hdr v3-stalehash 'application/json' '/openapi/v3/apis/apps/v1?hash=0123'
hdr v3-notfound 'application/json' /openapi/v3/apis/nope/v1
hdr v3-406 'text/plain' /openapi/v3/apis/apps/v1
hdr v2-json 'application/json' /openapi/v2
hdr v2-proto 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' /openapi/v2
hdr v2-kubectl 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf;q=0.9,application/com.github.proto-openapi.spec.v2@v1.0+protobuf,application/json;q=0.8' /openapi/v2
hdr v2-406 'text/plain' /openapi/v2
c -X POST -o /dev/null -w 'POST /openapi/v2: %{http_code}\n' "$base/openapi/v2" >> headers.txt
c -X POST -o /dev/null -w 'POST /openapi/v3/apis/apps/v1: %{http_code}\n' "$base/openapi/v3/apis/apps/v1" >> headers.txt
c -w '\n404 body above\n' "$base/openapi/v3/apis/nope/v1" >> headers.txt
c -H 'Accept: text/plain' -w '\n406 body above\n' "$base/openapi/v3/apis/apps/v1" >> headers.txt
c -H 'Accept: text/plain' -w '\n406 v2 body above\n' "$base/openapi/v2" >> headers.txt

# The CRDs.
python3 -c 'import json,sys,yaml; [print(json.dumps(d)) for d in yaml.safe_load_all(open("crds.yaml")) if d]' |
  while read -r crd; do
    c -X POST -H 'Content-Type: application/json' --data-binary "$crd" -o /dev/null -w 'create CRD: %{http_code}\n' \
      "$base/apis/apiextensions.k8s.io/v1/customresourcedefinitions" >&2
  done
sleep 10 # Established, then the OpenAPI controllers publish
mkdir -p crd-v3
c "$base/openapi/v3" | sortjson > crd-v3/index.json
for p in $(python3 -c 'import json; print(" ".join(p for p in json.load(open("crd-v3/index.json"))["paths"] if "example" in p))'); do
  c "$base/openapi/v3/$p" | sortjson > "crd-v3/${p//\//__}.json"
done
python3 -c '
import json
d=json.load(open("crd-v3/apis__stable.example.com__v1.json"))["components"]["schemas"]
json.dump({k:v for k,v in d.items() if "example" not in k}, open("/tmp/crd-v3-definitions.json","w"), sort_keys=True)'
gzip -9n < /tmp/crd-v3-definitions.json > "$data/crd-v3-definitions.json.gz"
c -H 'Accept: application/json' "$base/openapi/v2" | python3 -c '
import json,sys
d=json.load(sys.stdin)
paths={k:v for k,v in d["paths"].items() if "example" in k}
refs=set()
def walk(v):
    if isinstance(v,dict):
        r=v.get("$ref","")
        if r.startswith("#/parameters/"): refs.add(r[len("#/parameters/"):])
        for x in v.values(): walk(x)
    elif isinstance(v,list):
        for x in v: walk(x)
walk(paths)
out={"paths":paths,"definitions":{k:v for k,v in d["definitions"].items() if "example" in k},"parameters":{k:d["parameters"][k] for k in refs}}
json.dump(out, sys.stdout, sort_keys=True)' > crd-v2.json
for v in v2 v2beta1; do
  for p in api apis; do
    c -H "Accept: application/json;g=apidiscovery.k8s.io;v=$v;as=APIGroupDiscoveryList" "$base/$p" | sortjson > "discovery-$v-$p.json"
  done
  hdr "discovery-$v" "application/json;g=apidiscovery.k8s.io;v=$v;as=APIGroupDiscoveryList" /apis
done
c -H 'Accept: application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' "$base/apis" > discovery-v2-apis.pb
hdr discovery-v2-proto 'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' /apis
for n in widgets.stable.example.com clusterthings.other.example.org; do
  c -X DELETE -o /dev/null "$base/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$n"
done
