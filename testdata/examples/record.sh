#!/usr/bin/env bash
# Records the stored objects under testdata/examples from a real kube-apiserver
# 1.37 (../shared/tools/realcluster), then derives the edited copies:
#
#   KUBECONFIG=/tmp/realcluster/kubeconfig KUBECTL=~/.cache/realcluster/bin/kubectl testdata/examples/record.sh
#
# deployment.yaml, configmap.yaml, crontab.yaml and crontab-crd.yaml are
# `kubectl get -o yaml` of the objects created below; every other file is one of them with
# a single edit (yq is not needed: the edits are plain sed on the YAML).
set -euo pipefail
KUBECTL=${KUBECTL:-kubectl}
export KUBECONFIG=${KUBECONFIG:-/tmp/realcluster/kubeconfig}
cd "$(dirname "$0")"
NS=versions-examples
k() { $KUBECTL "$@"; }
k delete namespace $NS --ignore-not-found --wait=true >/dev/null
k delete crd crontabs.stable.example.com --ignore-not-found --wait=true >/dev/null
k create namespace $NS >/dev/null
k -n $NS create serviceaccount default >/dev/null 2>&1 || true

cat <<'YAML' | k -n $NS apply --server-side -f - >/dev/null
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.k8s.io/nginx-slim:0.27
        ports:
        - containerPort: 80
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  nginx.conf: |
    server { listen 80; }
YAML
cat <<'YAML' | k apply --server-side -f - >/dev/null
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              image: {type: string}
          status:
            type: object
            properties:
              lastScheduleTime: {type: string}
YAML
k wait --for=condition=Established crd/crontabs.stable.example.com >/dev/null
sleep 2
cat <<'YAML' | k -n $NS apply --server-side -f - >/dev/null
apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: nightly
spec:
  cronSpec: "0 3 * * *"
  image: registry.k8s.io/busybox:1.36
YAML
sleep 5 # let the deployment controller write status and the revision annotation

k -n $NS get deployment web -o yaml > deployment.yaml
k -n $NS get configmap web-config -o yaml > configmap.yaml
k -n $NS get crontab nightly -o yaml > crontab.yaml
k get crd crontabs.stable.example.com -o yaml > crontab-crd.yaml

# Edits, as a user would make them before `kubectl replace -f`.
sed '0,/^  replicas: 3$/s//  replicas: 5/' deployment.yaml > deployment-scaled.yaml
sed 's|image: registry.k8s.io/nginx-slim:0.27|image: registry.k8s.io/nginx-slim:0.28|' deployment.yaml > deployment-new-image.yaml
sed 's/^  labels:$/  labels:\n    tier: frontend/' deployment.yaml > deployment-labeled.yaml
rv=$(sed -n 's/^  resourceVersion: "\([0-9]*\)"$/\1/p' deployment.yaml)
sed "s/^  resourceVersion: \"$rv\"$/  resourceVersion: \"$((rv - 1))\"/;0,/^  replicas: 3$/s//  replicas: 5/" deployment.yaml > deployment-stale.yaml
sed 's/server { listen 80; }/server { listen 8080; }/' configmap.yaml > configmap-edited.yaml
sed 's/^spec:$/status:\n  lastScheduleTime: "2026-01-01T03:00:00Z"\nspec:/' crontab.yaml > crontab-status.yaml
sed 's/cronSpec: 0 3 \* \* \*/cronSpec: 0 4 * * */' crontab.yaml > crontab-rescheduled.yaml
cat > scale.yaml <<'YAML'
apiVersion: autoscaling/v1
kind: Scale
metadata:
  name: web
  namespace: versions-examples
spec:
  replicas: 5
YAML
for f in deployment-scaled deployment-new-image deployment-labeled deployment-stale configmap-edited crontab-status crontab-rescheduled; do
  cmp -s "$f.yaml" "${f%%-*}.yaml" && { echo "edit for $f.yaml did not apply" >&2; exit 1; }
done
k delete namespace $NS --wait=false >/dev/null
k delete crd crontabs.stable.example.com --wait=false >/dev/null
echo "recorded into $(pwd)"
