#!/usr/bin/env bash
# Builds FerretDB, a second MongoDB-wire server (SQLite-backed here), from the Go module
# proxy, once per version: the data-layer tests run on it as well as on mongo-java-server
# (see test/support/server/ferretdb.ts). Prints nothing when the binary is already built;
# with --print-path, the binary's path as its last line.
#
# The module's zip ships build/version/*.txt empty (they are generated from git), and a
# FerretDB built as the main module panics at start without version.txt, so the module
# is copied to a writable directory and the files are filled in before the build.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=v1.24.2
BIN="$PWD/tools/ferretdb/bin/ferretdb-$VERSION"
print_path() { if [ "${1:-}" = "--print-path" ]; then echo "$BIN"; fi; }
if [ -x "$BIN" ]; then print_path "$@"; exit 0; fi

command -v go >/dev/null || { echo "Go is needed to build FerretDB $VERSION for the tests." >&2; exit 1; }

echo >&2 "==> building FerretDB $VERSION (Go module proxy) for the second-database tests"
src_dir=$(go mod download -json "github.com/FerretDB/FerretDB@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src_dir" ] || { echo "go mod download gave no source directory for FerretDB $VERSION" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$src_dir" "$work/src"
chmod -R u+w "$work/src"
printf '%s\n' "$VERSION" >"$work/src/build/version/version.txt"
# No git metadata comes with a module zip: commit and branch stay empty ("unknown").
: >"$work/src/build/version/commit.txt"
: >"$work/src/build/version/branch.txt"
printf 'source\n' >"$work/src/build/version/package.txt"

mkdir -p "$(dirname "$BIN")"
# Pure Go (its SQLite is modernc.org/sqlite): no C compiler needed. -buildvcs=false: the
# copy is no checkout, and a stamped revision would have to equal commit.txt.
(cd "$work/src" && CGO_ENABLED=0 nice -n 10 go build -buildvcs=false -trimpath -o "$BIN.tmp" ./cmd/ferretdb)
mv "$BIN.tmp" "$BIN"
"$BIN" --version | sed -n 1p >&2
print_path "$@"
