#!/usr/bin/env bash
# Records the OpenAPI v3 documents a real kube-apiserver 1.37 (default flags) serves for every
# built-in group version (/openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>), gzipped, one per
# group version: the definitions the apiserver's field manager converts into its SMD types
# (managedfields.NewTypeConverter). Groups not in internal/gen's upstream discovery fixtures (CRDs)
# are left out. Run from this directory:
#
#   KUBECONFIG=/tmp/realcluster/kubeconfig KUBECTL=~/.cache/realcluster/bin/kubectl ./record-openapi.sh
set -euo pipefail
KUBECTL=${KUBECTL:-kubectl}
upstream=../../../../internal/gen/testdata/discovery/upstream/apis.json
builtin_groups=$(python3 -c 'import json,sys; print(" ".join(g["name"] for g in json.load(open(sys.argv[1]))["groups"]))' "$upstream")
rm -f ./*.json.gz
for gv in $("$KUBECTL" api-versions); do
  case "$gv" in
    */*)
      group=${gv%%/*}
      case " $builtin_groups " in *" $group "*) ;; *) continue ;; esac
      path=/openapi/v3/apis/$gv; file=apis__${group}__${gv#*/}.json.gz ;;
    *) path=/openapi/v3/api/$gv; file=api__$gv.json.gz ;;
  esac
  "$KUBECTL" get --raw "$path" | python3 -c 'import json,sys; json.dump(json.load(sys.stdin), sys.stdout, sort_keys=True)' | gzip -9n > "$file"
done
