#!/usr/bin/env bash
# Records what a real kube-apiserver 1.37 with default flags serves into cluster/: /api, /api/v1,
# /apis and /apis/<group>/<version> of every built-in group version, named like the Kubernetes
# repository's api/discovery fixtures in upstream/ (api__v1.json, apis__apps__v1.json). Groups that
# upstream/apis.json does not list (CRDs and aggregated APIs someone installed) are left out. The
# generator reads cluster/ to decide which kinds are served by default. Run from this directory:
#
#   KUBECONFIG=/tmp/realcluster/kubeconfig KUBECTL=~/.cache/realcluster/bin/kubectl ./record-discovery.sh
set -euo pipefail
KUBECTL=${KUBECTL:-kubectl}
out=cluster
rm -rf "$out"
mkdir -p "$out"
builtin_groups=$(python3 -c 'import json; print(" ".join(g["name"] for g in json.load(open("upstream/apis.json"))["groups"]))')
pretty() { python3 -c '
import json, sys
keep = set(sys.argv[1].split())
doc = json.load(sys.stdin)
if doc.get("kind") == "APIGroupList":
    doc["groups"] = [g for g in doc["groups"] if g["name"] in keep]
json.dump(doc, sys.stdout, indent=2, sort_keys=True)
print()' "$builtin_groups"; }
get() { "$KUBECTL" get --raw "$1" | pretty > "$2"; }
get /api "$out/api.json"
get /apis "$out/apis.json"
for gv in $("$KUBECTL" api-versions); do
  case "$gv" in
    */*)
      group=${gv%%/*}
      case " $builtin_groups " in *" $group "*) ;; *) continue ;; esac
      get "/apis/$gv" "$out/apis__${group}__${gv#*/}.json" ;;
    *) get "/api/$gv" "$out/api__$gv.json" ;;
  esac
done
"$KUBECTL" get --raw /version | python3 -c 'import json,sys; print(json.load(sys.stdin)["gitVersion"])' > "$out/VERSION"
