"""`pylon mcp`: canon's actions and the numbered edits as MCP tools over stdio (the official SDK).

tools/list answers with one tool per registry command marked `mcp=Tool(...)`, schemas from
tools.py. tools/call turns the arguments into the command line (tools.argv) and runs it through
the CLI's own path (calls.run_line) with `--json`: the answer is that JSON document as structured
content plus the same text; a failure (`"ok": false`) is `isError: true` with `error[code]: message`
and the hint as text. Journal entries carry `harness` and `session` (provenance below).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from pylon.mcp import tools
from pylon.mcp.calls import Outcome, run_line

# pi-canon's environment names for the same facts, read after our own (scripts/runtime.mjs).
_SESSION_ENV = ("PYLON_MCP_SESSION", "CODEX_THREAD_ID", "CLAUDE_CODE_SESSION_ID")


def harness(given: str | None) -> str:
    """Who is calling: `--harness`, else PYLON_HARNESS, else the client's own session variable, else `mcp`."""
    if given:
        return given
    if os.environ.get("PYLON_HARNESS"):
        return os.environ["PYLON_HARNESS"]
    if os.environ.get("CODEX_THREAD_ID"):
        return "codex"
    if os.environ.get("CLAUDE_CODE_SESSION_ID"):
        return "claude-code"
    return "mcp"


def session_id(meta: Mapping[str, Any] | None) -> str | None:
    """The call's session: `_meta.threadId` or `_meta.sessionId` (as pi-canon reads them), else the
    environment the client started the server with; None when nothing names one."""
    for key in ("threadId", "sessionId"):
        value = (meta or {}).get(key)
        if isinstance(value, str) and value:
            return value
    for name in _SESSION_ENV:
        if os.environ.get(name):
            return os.environ[name]
    return None


# Codex sends the thread's working folder in each call's _meta to servers that declare this capability.
SANDBOX_META = "codex/sandbox-state-meta"


def call_folder(meta: Mapping[str, Any] | None) -> str | None:
    """The folder a call runs in: Codex's `sandboxCwd` (a path or file: URL) when absolute, else None
    (the server's own folder, where the client started it)."""
    state = (meta or {}).get(SANDBOX_META)
    value = state.get("sandboxCwd") if isinstance(state, Mapping) else None
    if not isinstance(value, str):
        return None
    if value.startswith("file:"):
        from urllib.parse import unquote, urlparse

        value = unquote(urlparse(value).path)
    return value if os.path.isabs(value) else None


def call(name: str, arguments: Mapping[str, Any] | None, who: str, session: str | None,
         folder: str | None = None) -> tuple[dict[str, Any], bool]:
    """Run one tool call: (the JSON document, is it an error). Never raises for bad input."""
    from pylon.errors import PylonError

    env: dict[str, str] = {}
    fill = {"--harness": who}
    if session:
        from pylon.canon.agent.session import session_key

        fill["--session"] = session
        env["PYLON_SESSION"] = session_key(session)  # `canon read` marks what the hooks' session saw
    try:
        command = tools.find(name)
        line, stdin = tools.argv(command, dict(arguments or {}), fill)
    except PylonError as exc:
        doc = {"ok": False, "error": {"code": exc.code, "message": exc.message, "hint": exc.hint}}
        return doc, True
    outcome = run_line(line, stdin, env, folder)
    doc = outcome.document() or _no_document(outcome)
    return doc, doc.get("ok") is False


def _no_document(outcome: Outcome) -> dict[str, Any]:
    # Every tool command prints one JSON document with --json; this is the guard for one that did not.
    last = (outcome.stderr.strip().splitlines() or ["no output"])[-1]
    return {"ok": False, "error": {"code": "internal", "message": f"The command printed no JSON ({last}).",
                                   "hint": "Run the same command in a shell with --json to see what it says."}}


def text_of(doc: dict[str, Any], is_error: bool) -> str:
    if is_error and isinstance(doc.get("error"), dict):
        error = doc["error"]
        hint = f"\nhint: {error['hint']}" if error.get("hint") else ""
        return f"error[{error.get('code')}]: {error.get('message')}{hint}"
    return json.dumps(doc, ensure_ascii=False)


def build(who: str) -> Any:
    """The SDK's low-level Server with our two handlers (imports the SDK: only `pylon mcp` pays)."""
    from mcp import types
    from mcp.server.lowlevel import Server

    from pylon import __version__

    listed = [types.Tool(name=tools.tool_name(c), description=tools.description(c), input_schema=tools.input_schema(c))
              for c in tools.tool_commands()]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        raw = ctx.params.get("_meta") if isinstance(ctx.params, Mapping) else None
        meta = raw if isinstance(raw, Mapping) else None
        # In the main thread, as on the command line (the edit engine's file lease sets a signal
        # handler, which only the main thread may): calls are serialised anyway (calls.py).
        doc, is_error = call(params.name, params.arguments, who, session_id(meta), call_folder(meta))
        return types.CallToolResult(content=[types.TextContent(text=text_of(doc, is_error))],
                                    structured_content=doc, is_error=is_error)

    return Server("pylon", version=__version__, instructions=_INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool)


_INSTRUCTIONS = ("pylon: project memory (canon) and numbered edits. Before changing a file, canon_read it (its "
                 "article); after a real change, canon_write the article; canon_journal records events. read/edit: "
                 "whole-line edits by the line numbers and tag read printed.")


def serve(given_harness: str | None) -> None:
    """Serve until the client closes stdin and every request read before that is answered."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build(harness(given_harness))

    async def main() -> None:
        from pylon.mcp.drain import drained

        async with stdio_server() as (read_stream, write_stream):
            options = server.create_initialization_options(experimental_capabilities={SANDBOX_META: {}})
            read, write = drained(read_stream, write_stream)  # every request read is answered before exit
            await server.run(read, write, options)

    anyio.run(main)
