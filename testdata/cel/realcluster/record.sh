#!/usr/bin/env bash
# Records what a real kube-apiserver 1.37 answers to the CRD rule cases of ../rules/*.json, as
# replayable fixtures (<case>.json). Run it against the control plane of
# ../shared/tools/realcluster:
#
#   KUBECONFIG=/tmp/realcluster/kubeconfig KUBECTL=~/.cache/realcluster/bin/kubectl testdata/cel/realcluster/record.sh
#
# For each case: the CRD is created (answer recorded: a CRD with bad rules is refused with 422).
# If it is accepted, a create case POSTs the object; an update case first creates the stored
# object under the CRD without its x-kubernetes-validations, then adds the rules (PUT of the
# CRD) and PUTs the new object with the stored resourceVersion (ratcheting applies). Recorded:
# HTTP code, response body, Warning headers, and for updates the stored object before the PUT.
# Works in namespace cel-rec and CRDs of groups <case>.cel.writepath.io; deletes them at the end.
set -euo pipefail
KUBECTL=${KUBECTL:-kubectl}
export KUBECONFIG=${KUBECONFIG:-/tmp/realcluster/kubeconfig}
SERVER=$($KUBECTL config view --raw -o jsonpath='{.clusters[0].cluster.server}')
TOKEN=$($KUBECTL config view --raw -o jsonpath='{.users[0].user.token}')
HERE=$(cd "$(dirname "$0")" && pwd)
CASES=$HERE/../rules
NS=cel-rec
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# api METHOD PATH [BODY-FILE]: prints the HTTP code; body in $TMP/body, headers in $TMP/headers.
api() {
  local method=$1 path=$2 body=${3:-}
  local args=(-sk -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' -X "$method" -H "Authorization: Bearer $TOKEN" -H 'Accept: application/json')
  if [ -n "$body" ]; then args+=(-H "Content-Type: application/json" --data-binary @"$body"); fi
  curl "${args[@]}" "$SERVER$path"
}

warnings() { { grep -i '^warning:' "$TMP/headers" || true; } | sed 's/^[Ww]arning: //; s/\r$//' | jq -R -s 'split("\n") | map(select(length > 0))'; }

established() {
  for _ in $(seq 1 60); do
    if $KUBECTL get crd "$1" -o jsonpath='{.status.conditions[?(@.type=="Established")].status}' 2>/dev/null | grep -q True; then
      sleep 1; return 0
    fi
    sleep 0.5
  done
  echo "CRD $1 not established" >&2; exit 1
}

$KUBECTL create namespace $NS >/dev/null 2>&1 || true
for f in "$CASES"/*.json; do
  name=$(basename "$f" .json)
  crdname=$(jq -r .crd.metadata.name "$f")
  group=$(jq -r .crd.spec.group "$f")
  base=/apis/$group/v1/namespaces/$NS/widgets
  $KUBECTL delete crd "$crdname" --ignore-not-found --wait=true >/dev/null
  stored=null
  if [ "$(jq 'has("old")' "$f")" = true ]; then
    jq '.crd | del(.. | ."x-kubernetes-validations"?)' "$f" > "$TMP/crd0"
    code=$(api POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions "$TMP/crd0")
    [ "${code:0:1}" = 2 ] || { echo "$name: CRD without rules refused: $code $(cat "$TMP/body")" >&2; exit 1; }
    established "$crdname"
    jq '.old | del(.metadata.resourceVersion)' "$f" > "$TMP/old"
    code=$(api POST "$base" "$TMP/old")
    [ "${code:0:1}" = 2 ] || { echo "$name: stored object refused: $code $(cat "$TMP/body")" >&2; exit 1; }
    stored=$(cat "$TMP/body")
    api GET "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$crdname" >/dev/null
    rv=$(jq -r .metadata.resourceVersion "$TMP/body")
    jq --arg rv "$rv" '.crd | .metadata.resourceVersion = $rv' "$f" > "$TMP/crd"
    crdcode=$(api PUT "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$crdname" "$TMP/crd")
  else
    jq '.crd' "$f" > "$TMP/crd"
    crdcode=$(api POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions "$TMP/crd")
  fi
  crdbody=$(cat "$TMP/body")
  code=0 body=null warn='[]'
  if [ "${crdcode:0:1}" = 2 ]; then
    established "$crdname"
    sleep 2 # the new rules reach the custom resource handler
    if [ "$stored" != null ]; then
      orv=$(echo "$stored" | jq -r .metadata.resourceVersion)
      jq --arg rv "$orv" '.object | .metadata.resourceVersion = $rv' "$f" > "$TMP/obj"
      code=$(api PUT "$base/$(jq -r .object.metadata.name "$f")" "$TMP/obj")
    else
      jq '.object' "$f" > "$TMP/obj"
      code=$(api POST "$base" "$TMP/obj")
    fi
    body=$(cat "$TMP/body"); warn=$(warnings)
  fi
  jq -n --argjson crdCode "$crdcode" --argjson crdBody "$crdbody" --argjson code "$code" --argjson body "$body" \
    --argjson warnings "$warn" --argjson stored "$stored" \
    '{crdCode: $crdCode, crdBody: $crdBody, stored: $stored, code: $code, body: $body, warnings: $warnings}' > "$HERE/$name.json"
  echo "$name: crd $crdcode, object $code"
  $KUBECTL delete crd "$crdname" --ignore-not-found --wait=false >/dev/null
done
$KUBECTL delete namespace $NS --wait=false >/dev/null 2>&1 || true
