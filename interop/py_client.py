"""Interop smoke client: drives withings-mcp with the official Python `mcp` SDK (pinned 2.3.0).

Usage:
  py_client.py stdio-client  SERVER_CMD...   high-level Client, mode auto (server/discover -> 2026-07-28)
  py_client.py stdio-session SERVER_CMD...   ClientSession, initialize handshake (2025-11-25)
  py_client.py http-session  URL             ClientSession over Streamable HTTP
  py_client.py http-client   URL             high-level Client over Streamable HTTP, mode auto

Each run lists and calls tools, lists/reads resources and templates, lists/gets prompts, asks for a
completion and (handshake era) pings. Exit status 0 only if every step succeeded.
"""

import asyncio
import contextlib
import os
import sys
import warnings

import httpx2

from mcp import Client, ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

warnings.simplefilter("ignore")  # set_logging_level is deprecated in 2.x; still part of our surface


def say(label: str, *parts: object) -> None:
    print(f"  [{label}]", *parts, flush=True)


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


async def exercise(api, label: str, protocol: str, handshake: bool) -> None:
    say(label, "protocol", protocol)
    if handshake:
        await api.send_ping()
        say(label, "ping ok")
    tools = (await api.list_tools()).tools
    names = [t.name for t in tools]
    say(label, f"{len(names)} tools:", ", ".join(names[:8]) + (" ..." if len(names) > 8 else ""))
    check(len(names) > 0, "tools/list returned no tools")
    for t in tools:
        check(bool(t.description), f"tool {t.name} has no description")
    no_args = [t for t in tools if not (t.input_schema or {}).get("required")]
    preferred = [n for n in ("withings_connection_status", "test_simple_text") if n in names]
    target = preferred[0] if preferred else no_args[0].name
    result = await api.call_tool(target, {})
    say(label, f"call {target}: is_error={result.is_error}", str(result.content[0])[:80] if result.content else "")
    check(result.content, f"{target} returned no content")
    bad = await api.call_tool(target, {"no_such_argument": 1})
    check(bad.is_error is True, "an unknown argument must be an isError result")
    say(label, "unknown argument -> isError ok")

    resources = (await api.list_resources()).resources
    say(label, f"{len(resources)} resources")
    readable = [r for r in resources if str(r.uri).startswith("test://")] or resources
    if readable:
        uri = str(readable[0].uri)
        try:
            read = await api.read_resource(uri)
            say(label, f"read {uri}: {len(read.contents)} content(s)")
        except Exception as e:  # a data resource needs a Withings account; an MCP error is an answer
            check("Error" in type(e).__name__ or "McpError" in type(e).__name__, f"read {uri} failed: {e!r}")
            say(label, f"read {uri}: error answer {e}")
    templates = (await api.list_resource_templates()).resource_templates
    say(label, f"{len(templates)} resource templates")

    prompts = (await api.list_prompts()).prompts
    say(label, f"{len(prompts)} prompts")
    check(len(prompts) > 0, "prompts/list returned no prompts")
    prompt = prompts[0]
    args = {a.name: "2026-01-01" for a in (prompt.arguments or []) if a.required}
    got = await api.get_prompt(prompt.name, args)
    check(len(got.messages) > 0, f"prompt {prompt.name} has no messages")
    say(label, f"prompt {prompt.name}: {len(got.messages)} message(s)")
    if prompt.arguments:
        done = await api.complete(
            types.PromptReference(type="ref/prompt", name=prompt.name), {"name": prompt.arguments[0].name, "value": ""}
        )
        say(label, f"completion for {prompt.name}.{prompt.arguments[0].name}: {done.completion.values[:5]}")


@contextlib.asynccontextmanager
async def http_transport(url: str):
    """Streamable HTTP with the server's bearer token: WITHINGS_MCP_HTTP_TOKEN, else the token file
    the server made in $HOME on its first start (CONTRACT 8.3)."""
    token = os.environ.get("WITHINGS_MCP_HTTP_TOKEN")
    if not token:
        with open(os.path.join(os.environ["HOME"], ".withings-mcp", "http-token")) as f:
            token = f.read().strip()
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            yield streams


def server_params(cmd: list[str]) -> StdioServerParameters:
    env = {"HOME": os.environ.get("HOME", "/tmp")}
    for key in ("WITHINGS_MCP_CONFORMANCE", "WITHINGS_DEMO"):
        if key in os.environ:
            env[key] = os.environ[key]
    return StdioServerParameters(command=cmd[0], args=cmd[1:], env=env)


async def main(mode: str, rest: list[str]) -> None:
    print(f"== {mode} {' '.join(rest)}", flush=True)
    if mode == "stdio-session":
        async with stdio_client(server_params(rest)) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=20) as session:
                init = await session.initialize()
                check(init.protocol_version == "2025-11-25", f"negotiated {init.protocol_version}")
                await session.set_logging_level("info")
                await exercise(session, mode, init.protocol_version, handshake=True)
    elif mode == "http-session":
        async with http_transport(rest[0]) as streams:
            async with ClientSession(streams[0], streams[1], read_timeout_seconds=20) as session:
                init = await session.initialize()
                check(init.protocol_version == "2025-11-25", f"negotiated {init.protocol_version}")
                await exercise(session, mode, init.protocol_version, handshake=True)
    elif mode in ("stdio-client", "http-client"):
        # A transport is entered once, so each client gets a fresh one.
        def target():
            return server_params(rest) if mode == "stdio-client" else http_transport(rest[0])

        async with Client(target(), read_timeout_seconds=20) as client:
            version = client.protocol_version
            check(version == "2026-07-28", f"auto mode should adopt 2026-07-28 after server/discover, got {version}")
            await exercise(client, mode, version, handshake=False)
        async with Client(target(), mode="legacy", read_timeout_seconds=20) as client:
            await exercise(client, mode + "/legacy", client.protocol_version, handshake=True)
    else:
        raise SystemExit(f"unknown mode {mode}\n{__doc__}")
    print(f"== {mode}: ok", flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
