"""Every failure, rendered once: the error envelope, exit codes, crash logs.

Expected failures are PylonErrors (usage errors from the parser among them). Anything else is
unexpected: one line on stderr, the traceback in a log file under the state directory.
Imported only when something failed.
"""

from __future__ import annotations

import errno
import os
import sys
import time

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

from pylon.cli import output
from pylon.errors import Exit, PylonError


def wants_json(argv: Sequence[str]) -> bool:
    """JSON mode for a command line that did not parse: `--json` or `--format json` before `--`."""
    args = list(argv)
    if "--" in args:
        args = args[: args.index("--")]
    if "--json" in args or "--format=json" in args:
        return True
    return any(a == "--format" and b == "json" for a, b in zip(args, args[1:]))


def _utf8(value: object) -> bool:
    """Does every string in `value` (nested lists and dicts) encode as strict UTF-8?"""
    if isinstance(value, str):
        return value.isascii() or not any(0xD800 <= ord(ch) <= 0xDFFF for ch in value)
    if isinstance(value, dict):
        return all(_utf8(k) and _utf8(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(_utf8(v) for v in value)
    return True


def fail(
    code: str, message: str, hint: str | None, exit_code: int, json_mode: bool, extra: dict[str, Any] | None = None
) -> int:
    if json_mode:
        body: dict[str, Any] = {"code": code, "message": message, "hint": hint}
        body.update(extra or {})
        error: object = body
        if not _utf8(body):  # a path that is not UTF-8 in the details: the ws documents' lossless form
            from pylon.jsonbytes import safe

            error = safe(body)
        # A stream's lines all have one shape, its failure too: {"ok": false, "event": "error", ...}.
        output.emit_json(
            {"ok": False, "event": "error", "error": error} if output.streaming() else {"ok": False, "error": error}
        )
    else:
        usage = (extra or {}).get("usage")
        output.render_error(code, message, hint, usage if isinstance(usage, str) else None)
    return exit_code


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so output still buffered for it cannot fail again at exit."""
    if sys.stdout is not None:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


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


def os_error(exc: OSError) -> PylonError | None:
    """The stable code of a file-system refusal (ENAMETOOLONG, ELOOP, EACCES...) that reached the
    top uncaught, worded from the error itself; None for the rest (those stay internal errors)."""
    from pylon.inputs import open_error

    if exc.errno not in (
        errno.ENAMETOOLONG,
        errno.ELOOP,
        errno.EACCES,
        errno.EPERM,
        errno.EROFS,
        errno.EISDIR,
        errno.ENOTDIR,
        errno.ENOENT,
        errno.ENXIO,
    ):
        return None
    from pylon.boundary import key_of

    name = key_of(exc.filename) if isinstance(exc.filename, str) else "a path"  # never a /proc/self/fd name
    shown = name if len(name) <= 200 else name[:200] + "..."
    error = open_error(
        exc, shown, "file", "Check the path (it is relative to the current folder), then run the command again."
    )
    if exc.errno == errno.EROFS:
        error = PylonError("permission", f"{shown} is on a read-only file system.", error.hint)
    return error


def handle_exception(exc: BaseException, argv: Sequence[str], json_mode: bool | None = None) -> int:
    """Render any failure under the conventions and return its exit status.

    `json_mode` is the parsed `--json` when the command line parsed, else guessed from argv.
    """
    if json_mode is None:
        json_mode = wants_json(argv)
    if isinstance(exc, PylonError):
        try:
            code = fail(exc.code, exc.message, exc.hint, int(exc.exit_code), json_mode, exc.details)
        except OSError:  # the error could not be printed (a full device, a closed stream)
            _drop_stdout()
            return int(exc.exit_code)
        if exc.after_shown is not None:
            exc.after_shown()
        return code
    if isinstance(exc, KeyboardInterrupt):
        output.err("interrupted")
        return 130
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        args = (
            "disk-full",
            "No space left on the device; the command stopped (a file being edited keeps its old content).",
            "Free some space (df -h shows where), then run the same command again.",
            Exit.FAILED,
        )
        try:
            return fail(*args, json_mode)
        except OSError:  # stdout itself is the full device: say it on stderr
            _drop_stdout()
            return fail(*args, False)
    mapped = os_error(exc) if isinstance(exc, OSError) else None
    if mapped is not None:  # a refusal of the file system no handler worded: still a stable code
        return handle_exception(mapped, argv, json_mode)
    if isinstance(exc, BrokenPipeError):
        # The reader went away (e.g. `| head`): stop quietly, like git.
        _drop_stdout()
        return 141
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
