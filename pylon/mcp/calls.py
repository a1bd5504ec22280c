"""One tool call run through the CLI's own code path, in this process.

`run_line` hands a command line to `pylon.cli.main.run` (the parser, the handler, the failure
renderer: the same bounds and error codes as a shell's `pylon ... --json`) with stdin, stdout
and stderr swapped for in-memory streams, the current folder and the environment restored after.
Calls are serialised by a lock: the std streams, the current folder and `os.environ` belong to
the whole process. While the server runs, fd 0 reads the null device and fd 1 writes to stderr
(server.serve), so a child process (git) that prints cannot reach the protocol stream either.
`call` runs one tool call inside the boundary (pylon/boundary.py) the server hands it.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from pylon.boundary import Reach

_LOCK = threading.Lock()


@dataclass
class Outcome:
    status: int
    stdout: str
    stderr: str

    def document(self) -> dict[str, Any] | None:
        """The command's JSON document: the last line of stdout that is a JSON object."""
        for line in reversed(self.stdout.splitlines()):
            try:
                doc = json.loads(line)
            except ValueError:
                continue
            if isinstance(doc, dict):
                return doc
        return None


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    # A real text layer over bytes: output.py writes undecodable paths to `.buffer`.
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape", newline="")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", "replace")


def run_line(
    line: list[str], stdin: str | None = None, env: dict[str, str] | None = None, folder: str | None = None
) -> Outcome:
    """Run `pylon LINE...` as the console script would (in `folder`, else here), capturing what it prints."""
    from pylon.cli.main import run

    with _LOCK:
        saved = sys.stdin, sys.stdout, sys.stderr
        cwd = os.getcwd()
        old_env = {key: os.environ.get(key) for key in env or {}}
        out, err = _stream(), _stream()
        sys.stdin, sys.stdout, sys.stderr = _stream((stdin or "").encode("utf-8")), out, err
        try:
            os.environ.update(env or {})
            status = run("pylon", ["-C", folder, *line] if folder else line)
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
            os.chdir(cwd)
            for key, value in old_env.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        return Outcome(status, _text(out), _text(err))


def call(
    name: str, arguments: Mapping[str, Any] | None, who: str, session: str | None, folder: str | None, reach: Reach
) -> tuple[dict[str, Any], bool]:
    """Run one tool call confined to `reach`: (the JSON document, is it an error). Never raises for bad input."""
    from pylon.boundary import confined
    from pylon.errors import PylonError
    from pylon.mcp import tools

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
    with confined(reach):
        outcome = run_line(line, stdin, env, folder)
    doc = outcome.document() or _no_document(outcome)
    return doc, doc.get("ok") is False


def _no_document(outcome: Outcome) -> dict[str, Any]:
    # Every tool command prints one JSON document with --json; this is the guard for one that did not.
    last = (outcome.stderr.strip().splitlines() or ["no output"])[-1]
    return {
        "ok": False,
        "error": {
            "code": "internal",
            "message": f"The command printed no JSON ({last}).",
            "hint": "Run the same command in a shell with --json to see what it says.",
        },
    }
