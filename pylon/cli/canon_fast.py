"""A typer-free front door for `canon ...` (start-up time is part of the product).

Importing typer costs most of `canon read`'s time budget, and agents call `canon read` on every
file they touch. This module parses the canon commands' small, fixed option sets by hand and calls
the same handlers the typer app uses (pylon/cli/canon_handlers.py). Anything it does not fully
understand (help, `--version`, an unknown or malformed option, a missing argument) returns None
before any side effect, and the typer app then parses the same argv and reports it exactly as it
always does.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

FLAG, STR, INT, MULTI = "flag", "str", "int", "multi"
_COMMON = {"--json": FLAG, "--root": STR, "--mount": MULTI}
# command -> (options, positionals): "none", "one", "one?", "many" (one or more)
SPECS: dict[str, tuple[dict[str, str], str]] = {
    "init": (_COMMON, "none"),
    "read": (_COMMON, "one"),
    "write": ({**_COMMON, "--capsule": STR, "--body": STR, "--body-file": STR, "--scope": STR}, "one"),
    "journal": ({**_COMMON, "--body-file": STR, "--subject": MULTI, "--slug": STR}, "one?"),
    "map": (_COMMON, "one?"),
    "search": ({**_COMMON, "--journal": FLAG, "--limit": INT}, "many"),
    "resolve": ({**_COMMON, "--explain": FLAG}, "many"),
    "status": (_COMMON, "none"),
    "lint": ({**_COMMON, "--format": STR, "--strict": FLAG, "--fix": FLAG, "--base": STR}, "any"),
}


def split_globals(argv: list[str], stop: str | None = None) -> tuple[list[str], str, list[str]] | None:
    """Root options before the command: -C DIR (repeatable), --color WHEN; (dirs, color, rest).

    With `stop` (e.g. `canon` for `pylon canon ...`), that word must come first and is skipped.
    """
    dirs: list[str] = []
    color = "auto"
    i = 0
    while i < len(argv):
        arg = argv[i]
        if stop is not None and arg == stop:
            stop = None
            i += 1
        elif arg == "-C" and i + 1 < len(argv):
            dirs.append(argv[i + 1])
            i += 2
        elif arg.startswith("-C") and len(arg) > 2:
            dirs.append(arg[2:])
            i += 1
        elif arg == "--color" and i + 1 < len(argv):
            color = argv[i + 1]
            i += 2
        elif arg.startswith("--color="):
            color = arg[len("--color=") :]
            i += 1
        elif arg.startswith("-") or stop is not None:
            return None
        else:
            return dirs, color, argv[i:]
    return None


def parse(args: list[str], options: dict[str, str]) -> tuple[list[str], dict[str, object]] | None:
    """Positionals and options as click would read them; None for anything unusual."""
    positionals: list[str] = []
    opts: dict[str, object] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--" or arg in ("-h", "--help"):
            return None
        if arg.startswith("-") and arg != "-":
            name, eq, inline = arg.partition("=")
            kind = options.get(name)
            if kind is None:
                return None
            if kind == FLAG:
                if eq:
                    return None
                opts[name] = True
                i += 1
                continue
            if eq:
                value = inline
                i += 1
            elif i + 1 < len(args):
                value = args[i + 1]
                i += 2
            else:
                return None
            if kind == MULTI:
                opts.setdefault(name, [])
                opts[name].append(value)  # type: ignore[union-attr]
            elif kind == INT:
                try:
                    opts[name] = int(value)
                except ValueError:
                    return None
            else:
                opts[name] = value
            continue
        positionals.append(arg)
        i += 1
    return positionals, opts


def _call(command: str, pos: list[str], opts: dict[str, object]) -> Callable[[], None] | None:
    from pylon.cli import canon_handlers as h

    shape = SPECS[command][1]
    if (shape == "none" and pos) or (shape == "one" and len(pos) != 1) or (shape == "one?" and len(pos) > 1):
        return None
    if shape == "many" and not pos:
        return None
    j, root, mounts = bool(opts.get("--json")), opts.get("--root"), opts.get("--mount")
    o = opts.get
    calls: dict[str, Callable[[], None]] = {
        "init": lambda: h.do_init(j, root, mounts),  # type: ignore[arg-type]
        "read": lambda: h.do_read(pos[0], j, root, mounts),  # type: ignore[arg-type]
        "write": lambda: h.do_write(pos[0], o("--capsule"), o("--body"), o("--body-file"), o("--scope"), j, root, mounts),  # type: ignore[arg-type]
        "journal": lambda: h.do_journal(pos[0] if pos else None, o("--body-file"), o("--subject"), o("--slug"), j, root, mounts),  # type: ignore[arg-type]
        "map": lambda: h.do_map(pos[0] if pos else None, j, root, mounts),  # type: ignore[arg-type]
        "search": lambda: h.do_search(pos, bool(o("--journal")), o("--limit", 10), j, root, mounts),  # type: ignore[arg-type]
        "resolve": lambda: h.do_resolve(pos, bool(o("--explain")), j, root, mounts),  # type: ignore[arg-type]
        "status": lambda: h.do_status(j, root, mounts),  # type: ignore[arg-type]
        "lint": lambda: _lint(pos, o, j, root, mounts),  # type: ignore[arg-type]
    }
    return calls[command]


def _lint(pos: list[str], o: Callable[..., object], j: bool, root: str | None, mounts: list[str] | None) -> None:
    from pylon.cli.canon_lint_handler import do_lint  # canon lint's own module (typer-free)

    do_lint(pos, str(o("--format", "text")), bool(o("--strict")), bool(o("--fix")), o("--base"), j, root, mounts)  # type: ignore[arg-type]


def fast_main(argv: list[str], stop: str | None = None) -> int | None:
    """Run a plain `canon` command line without typer; None when typer must handle it."""
    split = split_globals(argv, stop)
    if split is None:
        return None
    dirs, color, rest = split
    if color not in ("auto", "always", "never") or not rest or rest[0] not in SPECS:
        return None
    command = rest[0]
    parsed = parse(rest[1:], SPECS[command][0])
    if parsed is None:
        return None
    call = _call(command, *parsed)
    if call is None:
        return None

    def run() -> None:
        _apply_globals(dirs, color)
        call()

    return guarded(run, argv)


def _apply_globals(dirs: list[str], color: str) -> None:
    from pylon.cli.output import set_color_mode
    from pylon.errors import UsageError

    set_color_mode(color)
    for d in dirs:
        try:
            os.chdir(d)
        except OSError as exc:
            raise UsageError(
                "bad-directory", f"Cannot run in {d!r}: {exc.strerror}.", "Pass an existing directory to -C."
            ) from None


def guarded(call: Callable[[], None], argv: list[str]) -> int:
    """The runner's conventions (error envelope, exit codes, crash log) around a fast command."""
    from pylon.cli import output, runner
    from pylon.errors import Exit, PylonError

    json_mode = runner.wants_json(argv)
    try:
        call()
        return Exit.OK
    except PylonError as exc:
        return runner.fail(exc.code, exc.message, exc.hint, int(exc.exit_code), json_mode, exc.details)
    except KeyboardInterrupt:
        output.err("interrupted")
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except SystemExit as exc:  # a handler asking for a specific exit status
        return int(exc.code or 0)
    except Exception as exc:  # noqa: BLE001 - same treatment as the runner: one line plus a log file
        try:
            where = runner._crash_log(exc)
        except OSError:
            where = "(could not write a log file)"
        return runner.fail(
            "internal-error",
            f"pylon hit an unexpected {type(exc).__name__}: {exc}. The traceback was written to {where}.",
            "Please report it with that file; re-running with the same input reproduces it.",
            Exit.FAILED,
            json_mode,
            {"log": where},
        )
