"""Runs a typer app under pylon's conventions: error envelope, exit codes, crash logs.

Every expected failure is a PylonError (or a usage error from the parser) and is rendered once,
here. Anything else is unexpected: one line on stderr, the traceback in a log file.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # typing costs start-up time on every command; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

from pylon.cli import output
from pylon.errors import Exit, PylonError


def wants_json(argv: Sequence[str]) -> bool:
    """JSON mode for errors: `--json` (or `--format json`) before any `--` separator."""
    args = list(argv)
    if "--" in args:
        args = args[: args.index("--")]
    if "--json" in args or "--format=json" in args:
        return True
    return any(a == "--format" and b == "json" for a, b in zip(args, args[1:]))


def fail(code: str, message: str, hint: str | None, exit_code: int, json_mode: bool, extra: dict[str, Any] | None = None) -> int:
    if json_mode:
        body: dict[str, Any] = {"code": code, "message": message, "hint": hint}
        body.update(extra or {})
        output.emit_json({"ok": False, "error": body})
    else:
        output.render_error(code, message, hint)
    return exit_code


def _crash_log(exc: BaseException) -> str:
    import traceback

    from pylon.state import state_dir

    folder = state_dir() / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"crash-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"argv: {sys.argv!r}\ncwd: {os.getcwd()}\n\n")
        traceback.print_exception(exc, file=fh)
    return str(path)


def run(build_app: Callable[[], Any], argv: Sequence[str], prog_name: str) -> int:
    """Parse and run `argv` with the typer app from `build_app`; return the exit code."""
    try:
        from typer.main import get_command

        command = get_command(build_app())
        result = command.main(args=list(argv), prog_name=prog_name, standalone_mode=False)
        return result if isinstance(result, int) else Exit.OK
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - sorted out by handle_exception
        return handle_exception(exc, argv, prog_name)


def handle_exception(exc: BaseException, argv: Sequence[str], prog_name: str = "pylon") -> int:
    """Render any failure under the conventions and return its exit code.

    The one place (shared by the typer runner and the fast front door) where expected failures are
    rendered and unexpected ones are turned into a log file.
    """
    json_mode = wants_json(argv)
    if isinstance(exc, PylonError):
        return fail(exc.code, exc.message, exc.hint, int(exc.exit_code), json_mode, exc.details)
    if isinstance(exc, KeyboardInterrupt):
        output.err("interrupted")
        return 130
    if isinstance(exc, BrokenPipeError):
        # The reader went away (e.g. `| head`): stop quietly, like git.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
        return _usage_error(exc, argv, prog_name, json_mode)
    if type(exc).__name__ == "Abort":
        output.err("aborted")
        return Exit.FAILED
    try:
        where = _crash_log(exc)
    except OSError:
        where = "(could not write a log file)"
    return fail(
        "internal-error",
        f"pylon hit an unexpected {type(exc).__name__}: {exc}. The traceback was written to {where}.",
        "Please report it with that file; re-running with the same input reproduces it.",
        Exit.FAILED,
        json_mode,
        {"log": where},
    )


def _usage_error(exc: Any, argv: Sequence[str], prog_name: str, json_mode: bool) -> int:
    """Parser errors (unknown option, missing argument) become `usage` errors with a help hint."""
    if type(exc).__name__ == "NoArgsIsHelpError":
        # A bare group (`pylon`, `canon`, `pylon ws`) shows its help: data on stdout, exit 2.
        output.out(str(exc.format_message()))
        return Exit.USAGE
    words = [a for a in argv if not a.startswith("-")][:2]
    ctx = getattr(exc, "ctx", None)
    path = ctx.command_path if ctx is not None else " ".join([prog_name, *words[:1]])
    code = Exit.USAGE if int(getattr(exc, "exit_code", 2)) == 2 else int(exc.exit_code)
    return fail("usage", str(exc.format_message()).rstrip("."), f"{path} --help", code, json_mode)
