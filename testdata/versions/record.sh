#!/usr/bin/env bash
# Records what a real kube-apiserver 1.37 answers to the writes the versions
# package models, as replayable fixtures (cases/*.json). Run it against the
# control plane of ../shared/tools/realcluster:
#
#   KUBECONFIG=/tmp/realcluster/kubeconfig KUBECTL=~/.cache/realcluster/bin/kubectl testdata/versions/record.sh
#
# Each case file holds the stored object before the request (GET), the request
# (verb, subresource, body or delete options; requestRaw is the body byte for
# byte, as jq would turn 1.0 into 1), the HTTP code, the response body and the
# object right after (GET, null when gone). It works in its own namespace (versions-rec) and cluster-scoped names
# prefixed versions-rec, and deletes them at the end.
set -euo pipefail
KUBECTL=${KUBECTL:-kubectl}
export KUBECONFIG=${KUBECONFIG:-/tmp/realcluster/kubeconfig}
SERVER=$($KUBECTL config view --raw -o jsonpath='{.clusters[0].cluster.server}')
TOKEN=$($KUBECTL config view --raw -o jsonpath='{.users[0].user.token}')
OUT=$(cd "$(dirname "$0")" && pwd)/cases
NS=versions-rec
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# api METHOD PATH [BODY-FILE] -> prints "CODE\n" then writes the body to $TMP/body
api() {
  local method=$1 path=$2 body=${3:-}
  local args=(-sk -o "$TMP/body" -w '%{http_code}' -X "$method" -H "Authorization: Bearer $TOKEN" -H 'Accept: application/json')
  local ctype=application/json
  [ "$method" = PATCH ] && ctype=application/merge-patch+json
  if [ -n "$body" ]; then args+=(-H "Content-Type: $ctype" --data-binary @"$body"); fi
  curl "${args[@]}" "$SERVER$path"
}

# must METHOD PATH [BODY-FILE]: a setup request that has to succeed.
must() {
  local code; code=$(api "$@")
  case $code in 2*) ;; *) echo "setup $1 $2 failed: $code $(cat "$TMP/body")" >&2; exit 1;; esac
}

# record NAME OP PATH SUBRESOURCE JQ-FILTER [EXTRA-JSON]
# GETs PATH (the stored object), builds the request body by applying JQ-FILTER to
# it (for delete: the DeleteOptions; for create: the filter's output alone), sends
# it, and writes cases/NAME.json. EXTRA-JSON is merged into the case (crd options).
record() {
  local name=$1 op=$2 path=$3 sub=$4 filter=$5 extra=${6:-'{}'}
  local stored='null'
  # Let controllers (deployment, daemonset) settle so that the GET and the write
  # below see the same version.
  sleep "${SETTLE:-1}"
  if [ "$op" != create ]; then
    must GET "$path"; stored=$(cat "$TMP/body")
  fi
  # jq cannot write 1.0; a filter writes "__FLOAT_1__" where it wants it.
  echo "$stored" | jq -c "$filter" | sed 's/"__FLOAT_1__"/1.0/g' > "$TMP/req"
  local method target=$path
  case $op in
    create) method=POST; target=${path%/*};;
    update) method=PUT;;
    delete) method=DELETE;;
    post) method=POST;;
    patch) method=PATCH;;
  esac
  [ -n "$sub" ] && target=$target/$sub
  local code; code=$(api "$method" "$target" "$TMP/req")
  cp "$TMP/body" "$TMP/resp"
  # The object right after the request (a subresource answers with another
  # kind; a delete may leave the object in place). null when it is gone.
  local after='null'
  if [ "$(api GET "$path")" = 200 ]; then after=$(cat "$TMP/body"); fi
  jq -n --arg name "$name" --arg op "$op" --arg sub "$sub" --argjson stored "$stored" \
    --slurpfile req "$TMP/req" --rawfile reqraw "$TMP/req" --argjson code "$code" --slurpfile resp "$TMP/resp" --argjson after "$after" --argjson extra "$extra" \
    '{name: $name, op: $op, subresource: $sub, stored: $stored, request: $req[0], requestRaw: $reqraw, code: $code, response: $resp[0], after: $after} + $extra' \
    > "$OUT/$name.json"
  echo "$name: $code"
}

cleanup() {
  api DELETE "/api/v1/namespaces/$NS" >/dev/null || true
  api DELETE "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.versions-rec.example.com" >/dev/null || true
  api DELETE "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.versions-rec.example.com" >/dev/null || true
  api DELETE "/apis/storage.k8s.io/v1/csidrivers/versions-rec.example.com" >/dev/null || true
  api DELETE "/apis/scheduling.k8s.io/v1/priorityclasses/versions-rec-pc" >/dev/null || true
  api DELETE "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/versions-rec-vwc" >/dev/null || true
  api DELETE "/apis/rbac.authorization.k8s.io/v1/clusterroles/versions-rec-cr" >/dev/null || true
}
cleanup
for i in $(seq 60); do [ "$(api GET /api/v1/namespaces/$NS)" = 404 ] && break; sleep 1; done
echo '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"'$NS'"}}' > "$TMP/ns"
must POST /api/v1/namespaces "$TMP/ns"
# Pods need the default ServiceAccount; create it rather than wait for the controller.
echo '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}' > "$TMP/sa"
api POST /api/v1/namespaces/$NS/serviceaccounts "$TMP/sa" >/dev/null || true

CM=/api/v1/namespaces/$NS/configmaps
# --- ConfigMap: create keeps a client generation; optimistic concurrency.
record configmap-create-generation create "$CM/cm1" "" \
  '{apiVersion:"v1",kind:"ConfigMap",metadata:{name:"cm1",generation:5},data:{a:"1"}}'
record configmap-update-stale-rv update "$CM/cm1" "" \
  '.metadata.resourceVersion = ((.metadata.resourceVersion|tonumber) - 1 | tostring) | .data.a = "2"'
record configmap-update-no-rv update "$CM/cm1" "" 'del(.metadata.resourceVersion) | .data.a = "3"'
record configmap-update-rv-zero update "$CM/cm1" "" '.metadata.resourceVersion = "0" | .data.a = "4"'
record configmap-update-rv-leading-zero update "$CM/cm1" "" '.metadata.resourceVersion = ("0" + .metadata.resourceVersion) | .data.a = "5"'
record configmap-update-rv-not-a-number update "$CM/cm1" "" '.metadata.resourceVersion = "abc" | .data.a = "6"'
record configmap-update-rv-huge update "$CM/cm1" "" '.metadata.resourceVersion = "123456789012345678901234567890" | .data.a = "7"'
record configmap-update-wrong-uid update "$CM/cm1" "" '.metadata.uid = "00000000-0000-0000-0000-000000000000" | .data.a = "8"'
record configmap-update-generation-ignored update "$CM/cm1" "" '.metadata.generation = 42 | .data.a = "9"'
record configmap-delete-wrong-uid delete "$CM/cm1" "" \
  '{kind:"DeleteOptions",apiVersion:"v1",preconditions:{uid:"00000000-0000-0000-0000-000000000000"}}'
record configmap-delete-wrong-rv delete "$CM/cm1" "" \
  '{kind:"DeleteOptions",apiVersion:"v1",preconditions:{resourceVersion:"1"}}'
record configmap-add-finalizer update "$CM/cm1" "" '.metadata.finalizers = ["example.com/hold"]'
record configmap-delete-with-finalizer delete "$CM/cm1" "" '{kind:"DeleteOptions",apiVersion:"v1"}'
record configmap-delete-again delete "$CM/cm1" "" '{kind:"DeleteOptions",apiVersion:"v1"}'
record configmap-remove-finalizer update "$CM/cm1" "" '.metadata.finalizers = []'

# --- Lease: no unconditional update.
LEASE=/apis/coordination.k8s.io/v1/namespaces/$NS/leases
record lease-create create "$LEASE/l1" "" '{apiVersion:"coordination.k8s.io/v1",kind:"Lease",metadata:{name:"l1",generation:3},spec:{holderIdentity:"a"}}'
record lease-update-no-rv update "$LEASE/l1" "" 'del(.metadata.resourceVersion) | .spec.holderIdentity = "b"'

# --- Deployment: spec and annotations bump, labels do not; status, scale.
DEP=/apis/apps/v1/namespaces/$NS/deployments
record deployment-create create "$DEP/web" "" '{apiVersion:"apps/v1",kind:"Deployment",metadata:{name:"web",generation:9,labels:{app:"web"}},spec:{replicas:2,selector:{matchLabels:{app:"web"}},template:{metadata:{labels:{app:"web"}},spec:{containers:[{name:"web",image:"registry.k8s.io/pause:3.10"}]}}}}'
record deployment-update-replicas update "$DEP/web" "" '.spec.replicas = 3'
record deployment-update-annotation update "$DEP/web" "" '.metadata.annotations["example.com/note"] = "x"'
record deployment-update-annotation-empty update "$DEP/web" "" '.metadata.annotations["example.com/empty"] = ""'
record deployment-update-empty-string update "$DEP/web" "" '.spec.template.spec.nodeName = "" | .spec.template.spec.hostname = ""'
record deployment-update-empty-struct update "$DEP/web" "" '.spec.template.spec.securityContext = {} | .spec.template.metadata.annotations = {}'
record deployment-update-cpu-limit update "$DEP/web" "" '.spec.template.spec.containers[0].resources = {limits:{cpu:"500m",memory:"1Gi"}}'
record deployment-update-cpu-same-value update "$DEP/web" "" '.spec.template.spec.containers[0].resources.limits = {cpu:"0.5",memory:"1024Mi"}'
record deployment-update-label update "$DEP/web" "" '.metadata.labels["tier"] = "front"'
record deployment-update-nothing update "$DEP/web" "" '.'
record deployment-update-status-ignored update "$DEP/web" "" '.status.observedGeneration = 100'
record deployment-update-image update "$DEP/web" "" '.spec.template.spec.containers[0].image = "registry.k8s.io/pause:3.9"'
record deployment-status-write update "$DEP/web" status '.status.observedGeneration = .metadata.generation | .spec.replicas = 7'
record deployment-scale-change update "$DEP/web" scale \
  '{apiVersion:"autoscaling/v1",kind:"Scale",metadata:{name:"web",namespace:.metadata.namespace},spec:{replicas:5}}'
record deployment-scale-same update "$DEP/web" scale \
  '{apiVersion:"autoscaling/v1",kind:"Scale",metadata:{name:"web",namespace:.metadata.namespace},spec:{replicas:5}}'
record deployment-update-stale-rv update "$DEP/web" "" '.metadata.resourceVersion = "1" | .spec.replicas = 1'
record deployment-delete-wrong-uid delete "$DEP/web" "" '{kind:"DeleteOptions",apiVersion:"v1",preconditions:{uid:"x"}}'
record deployment-delete-foreground delete "$DEP/web" "" '{kind:"DeleteOptions",apiVersion:"v1",propagationPolicy:"Foreground"}'

# --- DaemonSet: template changes bump generation and templateGeneration.
DS=/apis/apps/v1/namespaces/$NS/daemonsets
record daemonset-create create "$DS/ds" "" '{apiVersion:"apps/v1",kind:"DaemonSet",metadata:{name:"ds"},spec:{selector:{matchLabels:{app:"ds"}},template:{metadata:{labels:{app:"ds"}},spec:{containers:[{name:"c",image:"registry.k8s.io/pause:3.10"}]}}}}'
record daemonset-update-template update "$DS/ds" "" '.spec.template.metadata.labels.extra = "1"'
record daemonset-update-templategeneration update "$DS/ds" "" '.spec.templateGeneration = 77'
record daemonset-update-minreadyseconds update "$DS/ds" "" '.spec.minReadySeconds = 5'

# --- PodDisruptionBudget: no unconditional update; spec bumps.
PDB=/apis/policy/v1/namespaces/$NS/poddisruptionbudgets
record pdb-create create "$PDB/pdb" "" '{apiVersion:"policy/v1",kind:"PodDisruptionBudget",metadata:{name:"pdb"},spec:{minAvailable:1,selector:{matchLabels:{app:"web"}}}}'
record pdb-update-no-rv update "$PDB/pdb" "" 'del(.metadata.resourceVersion) | .spec.minAvailable = 2'
record pdb-update-spec update "$PDB/pdb" "" '.spec.minAvailable = 2'

# --- Pod: spec bumps; status does not; deletion with a finalizer bumps.
POD=/api/v1/namespaces/$NS/pods
record pod-create create "$POD/p" "" '{apiVersion:"v1",kind:"Pod",metadata:{name:"p",finalizers:["example.com/hold"]},spec:{automountServiceAccountToken:false,containers:[{name:"c",image:"registry.k8s.io/pause:3.10"}]}}'
record pod-update-image update "$POD/p" "" '.spec.containers[0].image = "registry.k8s.io/pause:3.9"'
record pod-update-label update "$POD/p" "" '.metadata.labels = {a:"b"}'
# pods/binding sets spec.nodeName straight in storage: no generation bump.
record pod-bind-create create "$POD/pb" "" '{apiVersion:"v1",kind:"Pod",metadata:{name:"pb"},spec:{automountServiceAccountToken:false,containers:[{name:"c",image:"registry.k8s.io/pause:3.10"}]}}'
record pod-binding post "$POD/pb" binding '{apiVersion:"v1",kind:"Binding",metadata:{name:"pb"},target:{apiVersion:"v1",kind:"Node",name:"versions-rec-node"}}'
# A bound pod is deleted gracefully (30s): it stays, with a bumped generation;
# shortening the grace period does not bump again.
record pod-delete-graceful delete "$POD/pb" "" '{kind:"DeleteOptions",apiVersion:"v1"}'
record pod-delete-shorten-grace delete "$POD/pb" "" '{kind:"DeleteOptions",apiVersion:"v1",gracePeriodSeconds:10}'
echo '{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}' > "$TMP/del0"
api DELETE "$POD/pb" "$TMP/del0" >/dev/null
record pod-delete-with-finalizer delete "$POD/p" "" '{kind:"DeleteOptions",apiVersion:"v1"}'
record pod-remove-finalizer update "$POD/p" "" '.metadata.finalizers = []'

# --- CSIDriver: create does not set generation; spec bumps it.
CSI=/apis/storage.k8s.io/v1/csidrivers
record csidriver-create create "$CSI/versions-rec.example.com" "" '{apiVersion:"storage.k8s.io/v1",kind:"CSIDriver",metadata:{name:"versions-rec.example.com"},spec:{attachRequired:true}}'
record csidriver-update-spec update "$CSI/versions-rec.example.com" "" '.spec.requiresRepublish = true'
record csidriver-update-no-rv update "$CSI/versions-rec.example.com" "" 'del(.metadata.resourceVersion) | .spec.requiresRepublish = false'

# --- Custom resources: with status+scale subresources, and with none.
crd() { # crd PLURAL KIND SUBRESOURCES-JSON
  jq -n --arg p "$1" --arg k "$2" --argjson sub "$3" '{apiVersion:"apiextensions.k8s.io/v1",kind:"CustomResourceDefinition",
    metadata:{name:($p+".versions-rec.example.com")},
    spec:{group:"versions-rec.example.com",scope:"Namespaced",names:{plural:$p,singular:($k|ascii_downcase),kind:$k,listKind:($k+"List")},
      versions:[{name:"v1",served:true,storage:true,subresources:$sub,
        schema:{openAPIV3Schema:{type:"object",properties:{spec:{type:"object","x-kubernetes-preserve-unknown-fields":true},
          status:{type:"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}}' > "$TMP/crd"
  must POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions "$TMP/crd"
}
crd widgets Widget '{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}}'
crd gadgets Gadget '{}'
for i in $(seq 60); do
  [ "$(api GET /apis/versions-rec.example.com/v1/namespaces/$NS/widgets)" = 200 ] && [ "$(api GET /apis/versions-rec.example.com/v1/namespaces/$NS/gadgets)" = 200 ] && break
  sleep 1
done
W=/apis/versions-rec.example.com/v1/namespaces/$NS/widgets
WX='{"crd":{"plural":"widgets","statusSubresource":true,"specReplicasPath":".spec.replicas"}}'
record widget-create create "$W/w1" "" '{apiVersion:"versions-rec.example.com/v1",kind:"Widget",metadata:{name:"w1",generation:4},spec:{replicas:1,size:"s"},status:{phase:"x"}}' "$WX"
record widget-update-status-ignored update "$W/w1" "" '.status = {phase:"ignored"}' "$WX"
record widget-update-spec update "$W/w1" "" '.spec.size = "m"' "$WX"
record widget-update-labels update "$W/w1" "" '.metadata.labels = {a:"b"}' "$WX"
record widget-update-toplevel update "$W/w1" "" '.extra = {k:1}' "$WX"
record widget-status-write update "$W/w1" status '.status = {phase:"ready"} | .spec.size = "l"' "$WX"
record widget-scale-change update "$W/w1" scale \
  '{apiVersion:"autoscaling/v1",kind:"Scale",metadata:{name:"w1",namespace:.metadata.namespace},spec:{replicas:3}}' "$WX"
record widget-update-no-rv update "$W/w1" "" 'del(.metadata.resourceVersion) | .spec.size = "xl"' "$WX"
record widget-update-stale-rv update "$W/w1" "" '.metadata.resourceVersion = "1" | .spec.size = "xl"' "$WX"
record widget-update-wrong-uid update "$W/w1" "" '.metadata.uid = "x" | .spec.size = "xl"' "$WX"
record widget-delete-wrong-rv delete "$W/w1" "" '{kind:"DeleteOptions",apiVersion:"v1",preconditions:{resourceVersion:"1"}}' "$WX"
record widget-delete-orphan delete "$W/w1" "" '{kind:"DeleteOptions",apiVersion:"v1",propagationPolicy:"Orphan"}' "$WX"
G=/apis/versions-rec.example.com/v1/namespaces/$NS/gadgets
GX='{"crd":{"plural":"gadgets","statusSubresource":false}}'
record gadget-create create "$G/g1" "" '{apiVersion:"versions-rec.example.com/v1",kind:"Gadget",metadata:{name:"g1"},spec:{a:1}}' "$GX"
record gadget-update-status update "$G/g1" "" '.status = {phase:"counted"}' "$GX"
record gadget-update-annotations update "$G/g1" "" '.metadata.annotations = {a:"b"}' "$GX"
record gadget-update-int-to-float update "$G/g1" "" '.spec.a = "__FLOAT_1__"' "$GX"
record gadget-update-null-vs-absent update "$G/g1" "" '.spec.b = null' "$GX"

# --- More built-in strategies, four writes each: create with a client
# generation (7), a spec-like change, a label change, an update without
# resourceVersion (a label change).
typecase() { # typecase NAME PATH CREATE-JQ SPEC-CHANGE-JQ
  local name=$1 path=$2
  record "$name-create" create "$path" "" "$3"
  record "$name-update-spec" update "$path" "" "$4"
  record "$name-update-labels" update "$path" "" '.metadata.labels = ((.metadata.labels // {}) + {"versions-rec":"x"})'
  record "$name-update-no-rv" update "$path" "" 'del(.metadata.resourceVersion) | .metadata.labels = ((.metadata.labels // {}) + {"versions-rec":"y"})'
}
TPL='{metadata:{labels:{app:"t"}},spec:{automountServiceAccountToken:false,containers:[{name:"c",image:"registry.k8s.io/pause:3.10"}]}}'
typecase statefulset "/apis/apps/v1/namespaces/$NS/statefulsets/ss" \
  "{apiVersion:\"apps/v1\",kind:\"StatefulSet\",metadata:{name:\"ss\",generation:7},spec:{serviceName:\"ss\",replicas:0,selector:{matchLabels:{app:\"t\"}},template:$TPL}}" \
  '.spec.replicas = 1'
typecase replicaset "/apis/apps/v1/namespaces/$NS/replicasets/rs" \
  "{apiVersion:\"apps/v1\",kind:\"ReplicaSet\",metadata:{name:\"rs\",generation:7},spec:{replicas:0,selector:{matchLabels:{app:\"t\"}},template:$TPL}}" \
  '.spec.minReadySeconds = 3'
typecase job "/apis/batch/v1/namespaces/$NS/jobs/j" \
  "{apiVersion:\"batch/v1\",kind:\"Job\",metadata:{name:\"j\",generation:7},spec:{suspend:true,template:{spec:{restartPolicy:\"Never\",automountServiceAccountToken:false,containers:[{name:\"c\",image:\"registry.k8s.io/pause:3.10\"}]}}}}" \
  '.spec.activeDeadlineSeconds = 100'
typecase cronjob "/apis/batch/v1/namespaces/$NS/cronjobs/cj" \
  "{apiVersion:\"batch/v1\",kind:\"CronJob\",metadata:{name:\"cj\",generation:7},spec:{schedule:\"0 0 1 1 *\",suspend:true,jobTemplate:{spec:{template:{spec:{restartPolicy:\"Never\",containers:[{name:\"c\",image:\"registry.k8s.io/pause:3.10\"}]}}}}}}" \
  '.spec.schedule = "0 0 2 1 *"'
typecase hpa "/apis/autoscaling/v2/namespaces/$NS/horizontalpodautoscalers/h" \
  '{apiVersion:"autoscaling/v2",kind:"HorizontalPodAutoscaler",metadata:{name:"h",generation:7},spec:{scaleTargetRef:{apiVersion:"apps/v1",kind:"Deployment",name:"nothing"},minReplicas:1,maxReplicas:3}}' \
  '.spec.maxReplicas = 4'
typecase ingress "/apis/networking.k8s.io/v1/namespaces/$NS/ingresses/i" \
  '{apiVersion:"networking.k8s.io/v1",kind:"Ingress",metadata:{name:"i",generation:7},spec:{defaultBackend:{service:{name:"s",port:{number:80}}}}}' \
  '.spec.defaultBackend.service.port.number = 81'
typecase networkpolicy "/apis/networking.k8s.io/v1/namespaces/$NS/networkpolicies/np" \
  '{apiVersion:"networking.k8s.io/v1",kind:"NetworkPolicy",metadata:{name:"np",generation:7},spec:{podSelector:{}}}' \
  '.spec.policyTypes = ["Ingress","Egress"]'
typecase service "/api/v1/namespaces/$NS/services/svc" \
  '{apiVersion:"v1",kind:"Service",metadata:{name:"svc",generation:7},spec:{ports:[{port:80}],selector:{app:"t"}}}' \
  '.spec.ports[0].port = 81'
typecase podtemplate "/api/v1/namespaces/$NS/podtemplates/pt" \
  "{apiVersion:\"v1\",kind:\"PodTemplate\",metadata:{name:\"pt\",generation:7},template:$TPL}" \
  '.template.metadata.labels.extra = "1"'
typecase endpointslice "/apis/discovery.k8s.io/v1/namespaces/$NS/endpointslices/eps" \
  '{apiVersion:"discovery.k8s.io/v1",kind:"EndpointSlice",metadata:{name:"eps",generation:7},addressType:"IPv4",endpoints:[{addresses:["10.0.0.1"]}]}' \
  '.endpoints[0].addresses = ["10.0.0.2"]'
record endpointslice-update-annotations update "/apis/discovery.k8s.io/v1/namespaces/$NS/endpointslices/eps" "" '.metadata.annotations = {a:"b"}'
typecase resourcequota "/api/v1/namespaces/$NS/resourcequotas/rq" \
  '{apiVersion:"v1",kind:"ResourceQuota",metadata:{name:"rq",generation:7},spec:{hard:{pods:"100"}}}' \
  '.spec.hard.pods = "101"'
typecase priorityclass "/apis/scheduling.k8s.io/v1/priorityclasses/versions-rec-pc" \
  '{apiVersion:"scheduling.k8s.io/v1",kind:"PriorityClass",metadata:{name:"versions-rec-pc",generation:7},value:1000}' \
  '.description = "changed"'
typecase vwc "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/versions-rec-vwc" \
  '{apiVersion:"admissionregistration.k8s.io/v1",kind:"ValidatingWebhookConfiguration",metadata:{name:"versions-rec-vwc",generation:7},webhooks:[{name:"a.versions-rec.example.com",clientConfig:{url:"https://example.com/x"},admissionReviewVersions:["v1"],sideEffects:"None",rules:[]}]}' \
  '.webhooks[0].timeoutSeconds = 5'
typecase clusterrole "/apis/rbac.authorization.k8s.io/v1/clusterroles/versions-rec-cr" \
  '{apiVersion:"rbac.authorization.k8s.io/v1",kind:"ClusterRole",metadata:{name:"versions-rec-cr",generation:7},rules:[]}' \
  '.rules = [{apiGroups:[""],resources:["pods"],verbs:["get"]}]'
CRDP=/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.versions-rec.example.com
record crd-update-spec update "$CRDP" '' '.spec.versions[0].additionalPrinterColumns = [{name:"Size",type:"string",jsonPath:".spec.size"}]'
record crd-update-labels update "$CRDP" '' '.metadata.labels = {"versions-rec":"x"}'
record crd-update-no-rv update "$CRDP" '' 'del(.metadata.resourceVersion) | .metadata.labels = {"versions-rec":"y"}'

# --- create with a resourceVersion: storage refuses a non-zero number.
record configmap-create-with-rv create "$CM/cm3" "" '{apiVersion:"v1",kind:"ConfigMap",metadata:{name:"cm3",resourceVersion:"5"}}'
record configmap-create-with-rv-zero create "$CM/cm4" "" '{apiVersion:"v1",kind:"ConfigMap",metadata:{name:"cm4",resourceVersion:"0"}}'
record configmap-create-with-rv-not-a-number create "$CM/cm5" "" '{apiVersion:"v1",kind:"ConfigMap",metadata:{name:"cm5",resourceVersion:"abc"}}'
record widget-create-with-rv create "$W/w3" "" '{apiVersion:"versions-rec.example.com/v1",kind:"Widget",metadata:{name:"w3",resourceVersion:"12"},spec:{}}' "$WX"

# --- PATCH (merge patch): the patched object's resourceVersion and uid.
record configmap-patch-create create "$CM/cm2" "" '{apiVersion:"v1",kind:"ConfigMap",metadata:{name:"cm2"},data:{a:"1"}}'
record configmap-patch-no-rv patch "$CM/cm2" "" '{data:{a:"2"}}'
record configmap-patch-stale-rv patch "$CM/cm2" "" '{metadata:{resourceVersion:"1"},data:{a:"3"}}'
record configmap-patch-null-rv patch "$CM/cm2" "" '{metadata:{resourceVersion:null},data:{a:"4"}}'
record configmap-patch-current-rv patch "$CM/cm2" "" '{metadata:{resourceVersion:.metadata.resourceVersion},data:{a:"5"}}'
record configmap-patch-wrong-uid patch "$CM/cm2" "" '{metadata:{uid:"x"},data:{a:"6"}}'
record widget-patch-create create "$W/w2" "" '{apiVersion:"versions-rec.example.com/v1",kind:"Widget",metadata:{name:"w2"},spec:{replicas:1}}' "$WX"
record widget-patch-null-rv patch "$W/w2" "" '{metadata:{resourceVersion:null},spec:{size:"s"}}' "$WX"
record widget-patch-spec patch "$W/w2" "" '{spec:{size:"m"}}' "$WX"
record lease-patch-null-rv patch "$LEASE/l1" "" '{metadata:{resourceVersion:null},spec:{holderIdentity:"c"}}'

# --- Namespace deletion preconditions (its own REST storage).
echo '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"versions-rec-ns2"}}' > "$TMP/ns2"
api DELETE /api/v1/namespaces/versions-rec-ns2 >/dev/null || true
for i in $(seq 60); do [ "$(api GET /api/v1/namespaces/versions-rec-ns2)" = 404 ] && break; sleep 1; done
must POST /api/v1/namespaces "$TMP/ns2"
record namespace-delete-wrong-uid delete /api/v1/namespaces/versions-rec-ns2 "" '{kind:"DeleteOptions",apiVersion:"v1",preconditions:{uid:"x"}}'
record namespace-delete-wrong-rv delete /api/v1/namespaces/versions-rec-ns2 "" '{kind:"DeleteOptions",apiVersion:"v1",preconditions:{resourceVersion:"1"}}'
api DELETE /api/v1/namespaces/versions-rec-ns2 >/dev/null || true

# Leave the pod and configmap deletable, then clean up.
api GET "$POD/p" >/dev/null || true
cleanup
echo "recorded $(ls "$OUT" | wc -l) cases into $OUT"
