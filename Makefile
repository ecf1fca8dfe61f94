# writepath — build and test entry points. `make test` is what CI runs (.ci/run).
GO        ?= go
FUZZTIME  ?= 60s
FUZZFLAGS ?=
FUZZJOBS  ?= 1
BENCHTIME ?= 1s
BENCHCOUNT ?= 10
BIN       := $(CURDIR)/bin

.PHONY: test fmt-check vet unit conformance conformance-long fuzz bench benchstat generate run etcd-server peer-suite

test: fmt-check vet unit conformance

fmt-check:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	cd conformance && $(GO) vet ./...
	cd conformance/defaults && $(GO) vet ./...
	cd internal/gen && $(GO) vet ./...
	cd storage/etcd && $(GO) vet ./...
	cd envtest && $(GO) vet ./...

unit: etcd-server
	$(GO) test -race -count=1 ./...
	cd internal/gen && $(GO) test -count=1 ./...
	cd storage/etcd && $(GO) test -race -count=1 ./...
	cd envtest && $(GO) test -race -count=1 ./...

# The etcd store's tests start /usr/bin/etcd (Debian's etcd-server), as
# ../shared/tools/realcluster/build.sh installs it.
etcd-server:
	@command -v etcd >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null; }

# Differential suites against the k8s.io reference libraries, on a fixed seeded sample.
conformance:
	cd conformance && $(GO) test -race -count=1 ./...
	cd conformance/defaults && $(GO) test -race -count=1 ./...

# The long differential runs (>=100k cases per suite). WRITEPATH_LONG sets the sample size.
conformance-long:
	cd conformance && WRITEPATH_LONG=1 $(GO) test -count=1 -timeout 3h ./...
	cd conformance/defaults && WRITEPATH_LONG=1 $(GO) test -count=1 -timeout 1h ./...

# Every fuzz target of every module of the tree (each go.mod: the library, conformance,
# conformance/defaults, generators, any added later) for FUZZTIME each; new failing inputs land in
# the package's testdata/fuzz. A failing target does not stop the others: the run fails at the
# end, naming them. FUZZLIST=1 lists the targets without running them. FUZZFLAGS go to each go test
# (FUZZFLAGS=-parallel=1 runs one fuzzing worker, for a shared machine). FUZZJOBS=N runs N targets
# at once (default 1); each target's output is printed in one piece, under its "== pkg Target"
# line, when it ends. A target that ends with a bare "context deadline exceeded" and writes no
# input is the fuzzing engine's deadline race on a loaded machine (golang/go#51484), listed apart,
# not a failure.
fuzz:
	@failed=""; flaked=""; dir=$$(mktemp -d); : > $$dir/started; i=0; \
	collect() { \
	  while read cn cpkg cf; do \
	    if [ -e $$dir/$$cn.done ] || [ ! -e $$dir/$$cn.rc ]; then continue; fi; \
	    : > $$dir/$$cn.done; crc=$$(cat $$dir/$$cn.rc); echo "== $$cpkg $$cf"; cat $$dir/$$cn.out; \
	    if [ "$$crc" -ne 0 ]; then \
	      if ! grep -q 'Failing input written to' $$dir/$$cn.out && grep -qx '    context deadline exceeded' $$dir/$$cn.out; then \
	        flaked="$$flaked $$cpkg.$$cf"; else failed="$$failed $$cpkg.$$cf"; fi; fi; \
	  done < $$dir/started; }; \
	for mod in $$(find . -name go.mod -not -path './.git/*' -exec dirname {} \; | sort); do \
	  for pkg in $$(cd $$mod && $(GO) list ./...); do \
	    for f in $$(cd $$mod && $(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	      if [ -n "$(FUZZLIST)" ]; then echo "== $$pkg $$f"; continue; fi; \
	      while [ $$(( i - $$(ls $$dir | grep -c '\.rc$$') )) -ge $(FUZZJOBS) ]; do sleep 1; collect; done; \
	      i=$$((i+1)); echo "$$i $$pkg $$f" >> $$dir/started; \
	      ( cd $$mod && $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$pkg > $$dir/$$i.out 2>&1; \
	        echo $$? > $$dir/$$i.rc.tmp; mv $$dir/$$i.rc.tmp $$dir/$$i.rc ) & \
	    done; done; done; wait; collect; rm -rf $$dir; \
	if [ -n "$$flaked" ]; then echo "fuzz targets stopped by the fuzztime deadline race (golang/go#51484, no input written):$$flaked"; fi; \
	if [ -n "$$failed" ]; then echo "failing fuzz targets:$$failed"; exit 1; fi

$(BIN)/benchstat:
	GOBIN=$(BIN) $(GO) install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

# Benchmarks of the library and, side by side, of the reference (conformance/bench).
bench: $(BIN)/benchstat
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count $(BENCHCOUNT) ./... | tee bench-lib.txt
	cd conformance && $(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count $(BENCHCOUNT) ./bench/... | tee ../bench-ref.txt
	$(BIN)/benchstat bench-ref.txt

# controller-runtime's own pkg/client envtest suite (v0.25.2, from the Go module proxy, its tests
# unchanged) against a `writepath serve` built from this checkout, with USE_EXISTING_CLUSTER=true
# (issue 17's peer suite). Not part of `make test`: it downloads and builds the suite (~1 min warm,
# ~10 min cold on 2 cores). Variables in envtest/peersuite.sh (PEER_SKIP, PEER_SERVE_FLAGS,
# PEER_KUBECONFIG to run it against another server).
peer-suite:
	GO=$(GO) bash envtest/peersuite.sh

# The README's run command.
run:
	$(GO) run ./cmd/writepath generation -f testdata/examples/deployment.yaml -f testdata/examples/deployment-scaled.yaml
