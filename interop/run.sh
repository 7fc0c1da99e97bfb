#!/usr/bin/env bash
# make interop: the Python `mcp` SDK (stdio and HTTP) and the official conformance suite against
# the real binary. Exits non-zero on any failure. Usage: interop/run.sh [path/to/withings-mcp]
set -euo pipefail

# The conformance suite's current releases need Node 22 (they crash on Node 20). npm serves Node
# itself as the `node` package: it is installed once into a cache folder outside the tree (taken
# from the real HOME, before the run replaces HOME) and put first on PATH for the suite.
NODE_VERSION=22.23.3
node_cache="${XDG_CACHE_HOME:-$HOME/.cache}/withings-mcp/node-$NODE_VERSION"

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

# Starts `withings-mcp --http --port 0 [ARGS]` and sets $url from the line it prints on stderr.
start_http() {
    local log="$work/server.log"
    : > "$log"
    "$bin" --http --port 0 "$@" 2> "$log" &
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

echo "== Node $NODE_VERSION (npm package node@$NODE_VERSION in $node_cache)"
if [ "$("$node_cache/node_modules/.bin/node" --version 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
    mkdir -p "$node_cache"
    [ -f "$node_cache/package.json" ] || echo '{"private": true}' > "$node_cache/package.json"
    (cd "$node_cache" && npm install --no-audit --no-fund --loglevel=error "node@$NODE_VERSION")
fi
export PATH="$node_cache/node_modules/.bin:$PATH"
[ "$(node --version)" = "v$NODE_VERSION" ] || { echo "interop: node on PATH is $(node --version)" >&2; exit 1; }

conformance="$(sed -n 's/.*"@modelcontextprotocol\/conformance": "\(.*\)".*/\1/p' "$here/package.json")"
echo "== MCP conformance suite $conformance (pinned in interop/package.json) on Node $(node --version)"
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
# The suite cannot send our bearer token; the Python runs above use it (from the token file the
# server made in the temp HOME). This server is a loopback test fixture, so the check is off.
start_http --no-token
started=$(date +%s)
# Three runs against one server: the active suite and the pending scenarios (handshake era,
# 2025-11-25) and exactly what the stateless 2026-07-28 revision requires. One baseline lists
# every failure that remains, with its reason; a new failure or a stale entry fails the run.
status=0
for run in "active|--suite active" "pending|--suite pending" "2026-07-28|--requirements 2026-07-28"; do
    name="${run%%|*}"
    read -r -a args <<< "${run#*|}"
    log="$work/conformance-$name.txt"
    set +e
    (cd "$here" && ./node_modules/.bin/conformance server --url "$url" "${args[@]}" \
        --expected-failures "$here/conformance-baseline.yml" -o "$work/results-$name") > "$log" 2>&1
    rc=$?
    set -e
    # The scenario table and the baseline verdict; the suite's own "Total" line is reworded so
    # that it is not taken for this script's test count.
    reword() { sed -e 's/^Total: \([0-9]*\) passed, \([0-9]*\) failed/checks: \1 passed and \2 failed/'; }
    sed -n '/=== SUMMARY ===/,$p' "$log" | reword
    echo "== conformance $name: exit $rc"
    [ "$rc" = 0 ] || { status=1; grep -B2 -A30 'Running scenario' "$log" | tail -n 60 | reword; }
done
stop_http
echo "== conformance: exit $status in $(( $(date +%s) - started )) s"
exit "$status"
