"""Handler of `pylon mcp`: starts the server beside it (pylon/mcp/server.py). It lives with the server, not in
pylon/cli, so that cli never imports mcp (mcp builds on the registry: pylon/mcp/tools.py)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class McpArgs(Protocol):
        harness: str | None


def serve(args: McpArgs) -> int:
    import os
    import sys

    from pylon.canon.text import check_provenance

    check_provenance(args.harness, None)  # before serving: a bad --harness ends the command
    try:  # stdin on the null device: no client can ever speak, so there is nothing to serve
        if sys.stdin is None or os.path.samestat(os.fstat(sys.stdin.fileno()), os.stat(os.devnull)):
            return 0
    except (OSError, ValueError):
        pass
    from pylon.mcp.server import serve as run_server

    return run_server(args.harness)
