"""The reference server: the same tools on the official MCP SDK's low-level Server over stdio
(pylon's design before its own server). Differential tests send both the same lines; bench/mcp.py
times its `initialize` as the baseline. Run as `python -m tests.mcp.sdk_server` in the project."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pylon.mcp import tools
from pylon.mcp.caller import SANDBOX_META, call_folder, harness, session_id
from pylon.mcp.calls import call
from pylon.mcp.server import INSTRUCTIONS, Server, text_of


def build(who: str) -> Any:
    from mcp import types
    from mcp.server.lowlevel import Server as SdkServer

    from pylon import __version__

    listed = [
        types.Tool(name=tools.tool_name(c), description=tools.description(c), input_schema=tools.input_schema(c))
        for c in tools.tool_commands()
    ]
    reach = Server.reach

    class Here:  # what Server.reach reads: where the server started, and no client roots
        started_in = os.getcwd()

        class roots:
            folders = None

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        raw = ctx.params.get("_meta") if isinstance(ctx.params, Mapping) else None
        meta = raw if isinstance(raw, Mapping) else None
        doc, is_error = call(params.name, params.arguments, who, session_id(meta), call_folder(meta), reach(Here()))  # type: ignore[arg-type]  # Here stands in for a Server: reach reads only these two
        return types.CallToolResult(
            content=[types.TextContent(text=text_of(doc, is_error))], structured_content=doc, is_error=is_error
        )

    return SdkServer(
        "pylon", version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool
    )


def main() -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    server = build(harness(None))

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            options = server.create_initialization_options(experimental_capabilities={SANDBOX_META: {}})
            await server.run(read_stream, write_stream, options)

    anyio.run(run)


if __name__ == "__main__":
    main()
