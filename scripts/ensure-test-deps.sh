#!/usr/bin/env bash
# Installs what the tests need on a fresh machine, skipping whatever is already there:
# npm packages (from the lock), Debian's Chromium for the browser tests, Debian's
# redis-server for the scale-out tests, Debian's caddy for the proxy test, the jars of the MongoDB-wire-compatible test
# server (from Maven Central), FerretDB, the second database of the data-layer tests, and Jaeger, the tracing tests'
# trace store (both from the Go module proxy).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "==> npm ci"
  npm ci --no-audit --no-fund
fi

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  echo "==> installing Chromium (Debian package) for the browser tests"
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
  elif command -v sudo >/dev/null; then
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
  else
    echo "Chromium is missing at $CHROMIUM and this user cannot install it; install Debian's 'chromium' or set CHROMIUM_PATH." >&2
    exit 1
  fi
fi

# The scale-out tests start their own redis-server on a free loopback port.
if ! command -v redis-server >/dev/null; then
  echo "==> installing redis-server (Debian package) for the scale-out tests"
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  elif command -v sudo >/dev/null; then
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  else
    echo "redis-server is missing and this user cannot install it; install Debian's 'redis-server'." >&2
    exit 1
  fi
fi

# The scaled deployment's proxy test runs Debian's Caddy with deploy/Caddyfile.
if ! command -v caddy >/dev/null; then
  echo "==> installing caddy (Debian package) for the scaled deployment's proxy test"
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq caddy >/dev/null
  elif command -v sudo >/dev/null; then
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq caddy >/dev/null
  else
    echo "caddy is missing and this user cannot install it; install Debian's 'caddy'." >&2
    exit 1
  fi
fi

if [ -z "${MONGODB_URI:-}" ]; then
  command -v java >/dev/null || { echo "Java 17+ is needed for the test database server (or set MONGODB_URI)." >&2; exit 1; }
  if [ ! -f tools/mongo-server/target/lib/mongo-java-server-core-1.47.0.jar ]; then
    echo "==> fetching the test database server (mongo-java-server) with Maven"
    mvn -q -B -f tools/mongo-server/pom.xml dependency:copy-dependencies -DoutputDirectory=target/lib
  fi
fi

# The data-layer tests run a second time on FerretDB (scripts/test-all.sh); built once per version.
bash scripts/ferretdb.sh

# The tracing test exports a turn's trace to a real Jaeger and reads it back; built once per version.
bash scripts/jaeger.sh
