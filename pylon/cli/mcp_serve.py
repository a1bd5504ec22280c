"""Handler of `pylon mcp`: the server itself lives in pylon/mcp/ (imported only here)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class McpArgs(Protocol):
        harness: str | None


def serve(args: McpArgs) -> int:
    from pylon.mcp.server import serve as run_server

    run_server(args.harness)
    return 0
