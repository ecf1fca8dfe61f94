#!/usr/bin/env bash
# Runs controller-runtime's own pkg/client envtest suite, unchanged, against `writepath serve`
# (issue 17's peer suite): the suite's module is downloaded from the Go module proxy, copied to a
# scratch directory and run there with USE_EXISTING_CLUSTER=true and KUBECONFIG pointing at a
# fresh server built from this checkout.
#
# Env:
#   CR_VERSION      controller-runtime's version (default v0.25.2, envtest/go.mod's)
#   PEER_DIR        scratch directory, kept for the next run (default /tmp/writepath-peersuite;
#                   the suite's copy there is made once, and its builds are cached)
#   PEER_KUBECONFIG run against this server instead of starting writepath serve (e.g. a real
#                   control plane's kubeconfig, for a comparison)
#   PEER_ASSETS     run the suite as it runs by default instead, envtest starting etcd and
#                   kube-apiserver from this KUBEBUILDER_ASSETS directory (the reference run)
#   PEER_SKIP       -ginkgo.skip's pattern; the default skips the endpoints outside issue 17:
#                   ServiceAccount token requests, Pod evictions, CSR approval
#   PEER_SERVE_FLAGS flags for writepath serve; the default turns the Deployment and ReplicaSet
#                   controllers off, as envtest's control plane (kube-apiserver and etcd) has
#                   none and the suite expects Deployments left as written; set it empty to run
#                   with every controller (then the suite's Deployment updates conflict with the
#                   controllers' status writes, as on a control plane with kube-controller-manager)
#   PEER_FLAGS      more flags for the suite's binary (e.g. -ginkgo.v, -ginkgo.focus=...)
set -euo pipefail -f
CR_VERSION=${CR_VERSION:-v0.25.2}
PEER_SERVE_FLAGS=${PEER_SERVE_FLAGS-'--controllers=*,-deployment,-replicaset'}
PEER_SKIP=${PEER_SKIP-'ServiceAccount tokens|Pod evictions|evicts a pod|approve CSRs'}
GO=${GO:-go}
root=$(cd "$(dirname "$0")/.." && pwd)
PEER_DIR=${PEER_DIR:-/tmp/writepath-peersuite}
mkdir -p "$PEER_DIR"
serve_pid=
cleanup() {
	if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

src=$(cd "$PEER_DIR" && GOFLAGS=-mod=mod $GO mod download -json "sigs.k8s.io/controller-runtime@$CR_VERSION" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src/pkg/client" ] || { echo "peersuite: no pkg/client in $src" >&2; exit 1; }
suite=$PEER_DIR/controller-runtime@$CR_VERSION
if [ ! -d "$suite" ]; then
	cp -r "$src" "$suite.tmp"
	chmod -R u+w "$suite.tmp"
	mv "$suite.tmp" "$suite"
fi
echo "peersuite: building the suite (controller-runtime $CR_VERSION pkg/client) in $suite" >&2
(cd "$suite" && $GO test -c -o "$PEER_DIR/client.test" ./pkg/client)

serve_start=
if [ -n "${PEER_ASSETS:-}" ]; then
	target="envtest's kube-apiserver and etcd from $PEER_ASSETS"
	run_env=(KUBEBUILDER_ASSETS="$PEER_ASSETS")
else
	if [ -z "${PEER_KUBECONFIG:-}" ]; then
		echo "peersuite: building writepath from $root" >&2
		(cd "$root" && $GO build -o "$PEER_DIR/writepath" ./cmd/writepath)
		PEER_KUBECONFIG=$PEER_DIR/writepath.kubeconfig
		rm -f "$PEER_KUBECONFIG"
		serve_start=$(date +%s.%N)
		# shellcheck disable=SC2086
		"$PEER_DIR/writepath" serve --kubeconfig "$PEER_KUBECONFIG" $PEER_SERVE_FLAGS > "$PEER_DIR/serve.log" 2>&1 &
		serve_pid=$!
		for _ in $(seq 1 1000); do
			grep -q '^serving on' "$PEER_DIR/serve.log" 2>/dev/null && [ -s "$PEER_KUBECONFIG" ] && break
			kill -0 "$serve_pid" 2>/dev/null || { cat "$PEER_DIR/serve.log" >&2; exit 1; }
			sleep 0.01
		done
		echo "peersuite: writepath serve $PEER_SERVE_FLAGS: $(head -n1 "$PEER_DIR/serve.log")" >&2
	fi
	target=$PEER_KUBECONFIG
	run_env=(USE_EXISTING_CLUSTER=true KUBECONFIG="$PEER_KUBECONFIG")
fi

echo "peersuite: running the suite against $target, skipping: ${PEER_SKIP:-nothing}" >&2
cd "$suite/pkg/client"
# From the server's start (writepath serve's, or envtest's inside the suite) to the suite's end.
start=${serve_start:-$(date +%s.%N)}
rc=0
# shellcheck disable=SC2086
env "${run_env[@]}" "$PEER_DIR/client.test" \
	-test.timeout 30m ${PEER_SKIP:+"-ginkgo.skip=$PEER_SKIP"} ${PEER_FLAGS:-} || rc=$?
echo "peersuite: $(echo "$(date +%s.%N) - $start" | bc) s from the server's start to the suite's end" >&2
exit $rc
