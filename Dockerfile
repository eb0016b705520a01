# syntax=docker/dockerfile:1
# Roadbook: one static binary (`roadbook api|worker|mcp|migrate|dev`) on a
# distroless base with no shell, running as the "nonroot" user (65532), the uid
# the Kubernetes manifests (deploy/k8s) expect.
#
#   docker build -t ghcr.io/roadbook/roadbook:0.1.0 .

FROM golang:1.26-bookworm AS build
WORKDIR /src
# A static binary: no libc, so it runs on distroless/static.
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
# The go.work workspace builds cmd/roadbook against the modules in this tree.
COPY . .
RUN --mount=type=cache,target=/root/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags="-s -w" -o /out/roadbook ./cmd/roadbook

# distroless/static ships CA certificates and tzdata, which the third-party
# HTTPS clients and the time-zone code need, and nothing else.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/roadbook /usr/local/bin/roadbook
USER 65532:65532
# api 8080 (Connect/gRPC/gRPC-Web, /metrics, /healthz, /readyz),
# mcp 8090 (/mcp, /healthz, /readyz, /metrics), worker 9090 (/healthz, /readyz, /metrics).
EXPOSE 8080 8090 9090 9091
ENTRYPOINT ["/usr/local/bin/roadbook"]
