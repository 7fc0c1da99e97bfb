#!/usr/bin/env bash
# make interop: the Python `mcp` SDK (stdio and HTTP) and the official conformance suite against
# the real binary. Exits non-zero on any failure. Usage: interop/run.sh [path/to/withings-mcp]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
bin="${1:-$root/target/release/withings-mcp}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
[ -x "$bin" ] || { echo "interop: no binary at $bin (run cargo build --release first)" >&2; exit 1; }

work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# A hermetic run: a temp HOME and the test-only conformance fixtures.
export HOME="$work/home"
mkdir -p "$HOME"
export WITHINGS_MCP_CONFORMANCE=1

echo "== Python mcp SDK"
if [ ! -x "$here/.venv/bin/python" ] || ! "$here/.venv/bin/python" -c 'import mcp' 2>/dev/null; then
    python3 -m venv "$here/.venv"
fi
"$here/.venv/bin/pip" install --quiet --disable-pip-version-check "mcp==2.3.0"
"$here/.venv/bin/pip" install --quiet --disable-pip-version-check "jsonschema>=4.18"  # second schema validator for tests/it/briefs.rs (tests/schema_check.py)
py="$here/.venv/bin/python"

# Starts `withings-mcp --http --port 0` and sets $url from the line it prints on stderr.
start_http() {
    local log="$work/server.log"
    : > "$log"
    "$bin" --http --port 0 2> "$log" &
    server_pid=$!
    for _ in $(seq 1 100); do
        url="$(grep -o 'http://[^ ]*/mcp' "$log" | head -n1 || true)"
        [ -n "$url" ] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.05
    done
    echo "interop: the HTTP server did not start:" >&2
    cat "$log" >&2
    exit 1
}

stop_http() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

"$py" "$here/py_client.py" stdio-session "$bin"
"$py" "$here/py_client.py" stdio-client "$bin"
start_http
"$py" "$here/py_client.py" http-session "$url"
"$py" "$here/py_client.py" http-client "$url"
stop_http

echo "== MCP conformance suite (@modelcontextprotocol/conformance, pinned in interop/package.json)"
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
start_http
started=$(date +%s)
(cd "$here" && ./node_modules/.bin/conformance server --url "$url" \
    --expected-failures "$here/conformance-baseline.yml" -o "$work/results") | tee "$work/conformance.txt"
status=${PIPESTATUS[0]}
stop_http
echo "== conformance: exit $status in $(( $(date +%s) - started )) s"
exit "$status"
