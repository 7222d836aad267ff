#!/usr/bin/env bash
# Builds Jaeger (v2: an OpenTelemetry-collector distribution with its own query API and
# UI) from the Go module proxy, once per version: the tracing tests export the app's spans
# to it over OTLP and read the trace back through its query API (see
# test/support/telemetry/jaeger.ts). Prints nothing when the binary is already built;
# with --print-path, the binary's path as its last line.
#
# v1.75.0 on purpose: the proxy also serves v1.76.0, but that is not an approved release.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=v1.75.0
BIN="$PWD/tools/jaeger/bin/jaeger-$VERSION"
print_path() { if [ "${1:-}" = "--print-path" ]; then echo "$BIN"; fi; }
if [ -x "$BIN" ]; then print_path "$@"; exit 0; fi

command -v go >/dev/null || { echo "Go is needed to build Jaeger $VERSION for the tracing tests." >&2; exit 1; }

echo >&2 "==> building Jaeger $VERSION (Go module proxy) for the tracing tests (takes a while)"
src_dir=$(go mod download -json "github.com/jaegertracing/jaeger@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src_dir" ] || { echo "go mod download gave no source directory for Jaeger $VERSION" >&2; exit 1; }

mkdir -p "$(dirname "$BIN")"
# Built as the main module straight from the read-only module cache (the build writes
# only its output). Pure Go with CGO off; under nice, since the build is long and the
# machine is shared. -buildvcs=false: a module zip is no checkout.
(cd "$src_dir" && CGO_ENABLED=0 GOFLAGS=-mod=mod nice -n 10 go build -buildvcs=false -trimpath -o "$BIN.tmp" ./cmd/jaeger)
mv "$BIN.tmp" "$BIN"
"$BIN" version 2>/dev/null | sed -n 1p >&2 || true
print_path "$@"
