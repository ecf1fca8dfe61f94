#!/usr/bin/env bash
# Records what the real kube-apiserver 1.37 answers to the strategic merge patches
# whose outcome is surprising (duplicate merge keys), next to writepath's golden cases in
# ../strategic/. Needs the lead's cluster (/tmp/realcluster/kubeconfig); run from this directory.
set -euo pipefail
K="${KUBECTL:-$HOME/.cache/realcluster/bin/kubectl} --kubeconfig ${KUBECONFIG_FILE:-/tmp/realcluster/kubeconfig}"
NS=patch-probe
$K create namespace $NS --dry-run=client -o yaml | $K apply -f - >/dev/null
# same-port-different-protocol (Service ports merge on "port" only)
$K -n $NS delete service dns --ignore-not-found >/dev/null
$K -n $NS apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Service
metadata: {name: dns}
spec:
  ports: [{port: 53, protocol: TCP, name: dns-tcp}, {port: 53, protocol: UDP, name: dns-udp}]
YAML
# The merge gives two UDP/53 ports (the TCP entry is the one merged), which validation rejects.
$K -n $NS patch service dns --type strategic -p '{"spec":{"ports":[{"port":53,"protocol":"UDP","name":"dns","targetPort":5353}]}}' -o json \
  > /dev/null 2> same-port-different-protocol.stderr.txt || true
# env-duplicate-names (env merges on "name"; the first duplicate is the one patched)
$K -n $NS delete deployment envdup --ignore-not-found >/dev/null
$K -n $NS create -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: envdup}
spec:
  replicas: 0
  selector: {matchLabels: {app: envdup}}
  template:
    metadata: {labels: {app: envdup}}
    spec:
      containers:
      - {name: app, image: "nginx:1", env: [{name: A, value: "1"}, {name: A, value: "2"}, {name: B, value: "3"}]}
YAML
$K -n $NS patch deployment envdup --type strategic -p '{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"A","value":"9"}]}]}}}}' -o json \
  | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["spec"]["template"]["spec"]["containers"][0]["env"], sort_keys=True))' > env-duplicate-names.env.json
$K -n $NS patch deployment envdup --type strategic -p '{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"A","$patch":"delete"}]}]}}}}' -o json \
  | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["spec"]["template"]["spec"]["containers"][0]["env"], sort_keys=True))' > env-duplicate-names-delete.env.json
