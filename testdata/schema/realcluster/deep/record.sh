#!/usr/bin/env bash
# Records what kube-apiserver 1.37.2 answers to CRDs nested deeper than 1000 levels
# (TestDeepCRDsAsRecorded replays them). Start a cluster first:
#   REALCLUSTER_RUN=/tmp/rc-deep REALCLUSTER_PORT=6502 bash /work/shared/tools/realcluster/up.sh
# then: REALCLUSTER_RUN=/tmp/rc-deep REALCLUSTER_PORT=6502 bash record.sh > answers.txt
# Each line: name, shape (props: properties.a nested; items: items nested), depth, HTTP status,
# the Status message (for errors). gen.py writes the body.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
RUN=${REALCLUSTER_RUN:-/tmp/realcluster}
PORT=${REALCLUSTER_PORT:-6443}
K="$HOME/.cache/realcluster/bin/kubectl --kubeconfig $RUN/kubeconfig"
for c in "pa props 1001" "pb props 4996" "pc props 4997" "ia items 5000" "ib items 9992" "ic items 9993"; do
  set -- $c
  [ -n "${SKIP:-}" ] && [[ " $SKIP " == *" $1 "* ]] && continue
  $K delete crd "$1s.example.com" --ignore-not-found >/dev/null 2>&1 || true
  python3 "$here/gen.py" "$3" "$2" "$1" > "/tmp/deep-$1.json"
  out=$(curl -sk -o /tmp/deep-$1.out -w '%{http_code}' -H "Authorization: Bearer admintoken" \
    -H 'Content-Type: application/json' --data-binary "@/tmp/deep-$1.json" \
    "https://127.0.0.1:$PORT/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
  msg=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("message","") if d.get("kind")=="Status" else "")' "/tmp/deep-$1.out" 2>/dev/null || true)
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$out" "$msg"
  $K delete crd "$1s.example.com" --ignore-not-found >/dev/null 2>&1 || true
done
# Bodies that are not JSON (parse-errors.txt: method, path, body as a JSON string, message).
if [ -n "${PARSE_ERRORS:-}" ]; then
  while IFS=$'\t' read -r method path body _; do
    [[ "$method" == "#"* ]] && continue
    raw=$(python3 -c 'import json,sys; sys.stdout.write(json.loads(sys.argv[1]))' "$body")
    msg=$(curl -sk -X "$method" -H "Authorization: Bearer admintoken" -H 'Content-Type: application/json' \
      --data-binary "$raw" "https://127.0.0.1:$PORT$path" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["message"]))')
    printf '%s\t%s\t%s\t%s\n' "$method" "$path" "$body" "$msg"
  done < "$here/parse-errors.txt"
fi
