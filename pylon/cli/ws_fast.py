"""The `pylon ws` commands' option sets for the typer-free front door (see pylon/cli/fastpath.py).

`dispatch` calls the same handlers as the typer app (ws_handlers.py).
"""

from __future__ import annotations

from pylon.cli.fastpath import FLAG, FLOAT, INT, STR

# command -> (options, positional shape)
SPECS: dict[str, tuple[dict[str, str], str]] = {
    "baseline": ({"--json": FLAG, "--delete": FLAG}, "one?"),
    "changes": ({"--json": FLAG, "--since": STR, "--limit": INT}, "none"),
    "diff": (
        {"--json": FLAG, "--since": STR, "--max-files": INT, "--max-lines": INT, "--max-bytes": INT, "--out": STR},
        "any",
    ),
    "cat": ({"--json": FLAG, "--base": FLAG, "--since": STR, "--max-bytes": INT}, "one"),
    "fingerprint": ({"--json": FLAG}, "none"),
    "run": ({"--json": FLAG, "--limit": INT}, "rest"),
    "watch": ({"--json": FLAG, "--since": STR, "--timeout": FLOAT, "--settle": FLOAT}, "none"),
    "status": ({"--json": FLAG}, "none"),
}


def dispatch(command: str, words: list[str], values: dict[str, object]) -> int:
    from pylon.cli import ws_handlers

    return ws_handlers.dispatch(command, {**values, "words": words})
