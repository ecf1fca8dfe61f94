#!/usr/bin/env bash
# Records kubectl 1.37 client-side apply against the real kube-apiserver 1.37 for the golden
# stories of merge.ClientSideApply (run from this directory; needs /tmp/realcluster/kubeconfig):
#   last-applied.txt      the annotation kubectl writes when it creates deployment.yaml
#   hpa-replicas.txt      spec.replicas after: apply, scale to 12 (as an HPA does), apply again
#   set-env.json          the container's env after: kubectl set env FOO=bar, apply again
set -euo pipefail
K="${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl} --kubeconfig ${KUBECONFIG_FILE:-/tmp/realcluster/kubeconfig}"
$K create namespace patch-probe --dry-run=client -o yaml | $K apply -f - >/dev/null
$K -n patch-probe delete deployment web --ignore-not-found --wait >/dev/null
$K apply -f deployment.yaml >/dev/null
$K -n patch-probe get deployment web -o json \
  | python3 -c 'import json,sys; sys.stdout.write(json.load(sys.stdin)["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])' > last-applied.txt
$K -n patch-probe scale deployment web --replicas=12 >/dev/null
$K apply -f deployment.yaml >/dev/null
$K -n patch-probe get deployment web -o jsonpath='{.spec.replicas}' > hpa-replicas.txt
$K -n patch-probe set env deployment/web FOO=bar >/dev/null
$K apply -f deployment.yaml >/dev/null
$K -n patch-probe get deployment web -o json \
  | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["spec"]["template"]["spec"]["containers"][0]["env"], sort_keys=True))' > set-env.json
# The PATCH body kubectl sends when re-applying after set env (order directives only).
$K apply -f deployment.yaml -v=9 2>&1 | grep '"Request Body"' | grep -v 'body=""' | tail -1 \
  | python3 -c 'import sys,re,json; line=sys.stdin.read(); m=re.search(r"body=(\".*\")\s*$", line); sys.stdout.write(json.loads(m.group(1)))' > reapply-after-set-env.patch.json
