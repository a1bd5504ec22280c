"""Console scripts `pylon` and `canon`: parse with the registry, run the handler, exit.

Kept tiny: agents call these hundreds of times a session. A plain command imports the registry,
the parser and its own handler module, nothing else; typer is imported only for help and shell
completion (help.py), the failure machinery only on failure (failure.py).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from pylon.cli.argv import Parsed


def pylon() -> None:
    _finish(run("pylon", sys.argv[1:]))


def canon() -> None:
    _finish(run("canon", sys.argv[1:]))


def run(prog: str, argv: list[str]) -> int:
    """Run one command line of `prog` ("pylon" or "canon") and return its exit status."""
    if f"_{prog.upper()}_COMPLETE" in os.environ:  # the shell asking for completions (help.py)
        from pylon.cli.help import complete

        return complete(prog)
    parsed: Parsed | None = None
    if sys.stdout is None:  # started with stdout closed (`>&-`): report it before doing anything
        os.write(
            2,
            b"error[stdout-closed]: stdout is closed, so nothing could be printed; nothing was done.\n"
            b"hint: Run the same command with stdout open, e.g. redirected to a file (> out.txt).\n",
        )
        return 1
    if argv[-1:] and argv[-1] in ("claude-code", "codex"):  # an agent's hook: no registry, no parser
        from pylon.cli.hook import fast

        answered = fast(prog, argv)
        if answered is not None:
            return answered
    try:
        from pylon.cli.argv import parse

        parsed = parse(prog, argv)
        return dispatch(prog, parsed)
    except SystemExit as exc:  # a handler asking for a specific status
        return exc.code if isinstance(exc.code, int) else 0
    except (Exception, KeyboardInterrupt) as exc:  # every failure is rendered in one place
        from pylon.cli.failure import handle_exception

        return handle_exception(exc, argv, _json_mode(parsed))


def _json_mode(parsed: Parsed | None) -> bool | None:
    """`--json` (or `--format json`) as parsed; None when the line did not parse."""
    if parsed is None or parsed.args is None:
        return None
    return bool(getattr(parsed.args, "json", False)) or getattr(parsed.args, "format", None) == "json"


def dispatch(prog: str, parsed: Parsed) -> int:
    from pylon.cli.output import set_color_mode

    set_color_mode(parsed.color)
    if parsed.notes:
        from pylon.cli.output import warn

        for note in parsed.notes:
            warn(note)
    if parsed.version:
        from pylon import __version__

        sys.stdout.write(f"pylon {__version__}\n")
        return 0
    if parsed.help:
        from pylon.cli.help import show_help

        return show_help(prog, parsed.target, bare=parsed.help == "bare")
    for folder in parsed.directory:
        change_directory(folder)
    from pylon.cli.spec import Command

    if not isinstance(parsed.target, Command) or parsed.args is None:  # parse() never returns this
        raise AssertionError(f"nothing to run for {parsed.target!r}")
    in_id = parsed.args.__dict__.pop("in_id", None)  # `--in ID` (commands.IN): handlers never see it
    if in_id is not None:
        from pylon.workspace.repo import locate
        from pylon.workspace.worktrees.new import path as worktree_path

        change_directory(str(worktree_path(locate(), str(in_id))["path"]))
    module, _, function = parsed.target.handler.partition(":")
    # __import__ rather than importlib.import_module: the importlib package imports warnings, a
    # cost every command would pay. With a fromlist it returns the submodule itself.
    return int(getattr(__import__(module, fromlist=[function]), function)(parsed.args) or 0)


def change_directory(folder: str) -> None:
    """`-C DIR`, like git: each one relative to the previous."""
    from pylon import boundary

    try:
        boundary.enter_folder(folder)  # a confined entry point (pylon mcp): only a folder it may reach
    except OSError as exc:
        from pylon.errors import UsageError

        raise UsageError(
            "bad-directory", f"Cannot run in {folder!r}: {exc.strerror}.", "Pass an existing directory to -C."
        ) from None


def _finish(code: int) -> None:
    # Flush here so a reader that went away (`| head`) cannot make the interpreter print
    # "Exception ignored ... BrokenPipeError" at shutdown.
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = code or 141
    except OSError as exc:  # e.g. stdout on a full device, found by the last flush: report it now
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        if not code:
            from pylon.cli.failure import handle_exception

            code = handle_exception(exc, [], False)
    # stderr too (block-buffered unless PYTHONUNBUFFERED is set): a message it could not take would
    # fail again at shutdown, and the interpreter would exit 120 instead of the command's own code.
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except OSError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())
    sys.exit(code)
