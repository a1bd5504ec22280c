"""A typer-free front door for `pylon ws ...` (start-up time is part of the product).

Importing typer costs ~110 ms, more than twice the 50 ms budget of `pylon ws changes`. This module
parses the ws commands' small, fixed option sets by hand and calls the same handlers the typer app
uses (pylon/cli/ws_handlers.py). Anything it does not fully understand (help, a bad option, a bad
number) returns None before any side effect, and the typer app then parses the same argv and
reports it exactly as every other command does.
"""

from __future__ import annotations

import os
import sys

FLAG = "flag"
INT = "int"
STR = "str"
FLOAT = "float"

# command -> (options, positional kind): positional kind is "none", "one?", "one", "many", "rest"
SPECS: dict[str, tuple[dict[str, str], str]] = {
    "baseline": ({"--json": FLAG, "--delete": FLAG}, "one?"),
    "changes": ({"--json": FLAG, "--since": STR, "--limit": INT}, "none"),
    "diff": (
        {"--json": FLAG, "--since": STR, "--max-files": INT, "--max-lines": INT, "--max-bytes": INT, "--out": STR},
        "many",
    ),
    "cat": ({"--json": FLAG, "--base": FLAG, "--since": STR, "--max-bytes": INT}, "one"),
    "fingerprint": ({"--json": FLAG}, "none"),
    "run": ({"--json": FLAG, "--limit": INT}, "rest"),
    "watch": ({"--json": FLAG, "--since": STR, "--timeout": FLOAT, "--settle": FLOAT}, "none"),
    "status": ({"--json": FLAG}, "none"),
}


def _parse_globals(argv: list[str]) -> tuple[list[str], str, list[str]] | None:
    """Root options before `ws`: -C DIR (repeatable), --color WHEN. Returns (dirs, color, rest)."""
    dirs: list[str] = []
    color = "auto"
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "ws":
            return dirs, color, argv[i + 1 :]
        if arg == "-C" and i + 1 < len(argv):
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
        else:
            return None
    return None


def parse(argv: list[str]) -> tuple[list[str], str, str, dict[str, object]] | None:
    """(dirs, color, command, values) or None when the typer app should handle argv."""
    found = _parse_globals(argv)
    if found is None:
        return None
    dirs, color, rest = found
    if color not in ("auto", "always", "never") or not rest or rest[0] not in SPECS:
        return None
    command, args = rest[0], rest[1:]
    options, positional = SPECS[command]
    values: dict[str, object] = {k: (False if kind == FLAG else None) for k, kind in options.items()}
    words: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            words += args[i + 1 :]
            if positional == "rest":
                values["--"] = True
            break
        if positional == "rest" and words:
            words += args[i:]
            break
        if arg.startswith("-") and arg != "-":
            name, eq, inline = arg.partition("=")
            kind = options.get(name)
            if kind is None:
                return None
            if kind == FLAG:
                if eq:
                    return None
                values[name] = True
                i += 1
                continue
            if eq:
                raw = inline
                i += 1
            elif i + 1 < len(args):
                raw = args[i + 1]
                i += 2
            else:
                return None
            try:
                values[name] = int(raw) if kind == INT else float(raw) if kind == FLOAT else raw
            except ValueError:
                return None
            continue
        words.append(arg)
        i += 1
    if positional == "none" and words:
        return None
    if positional == "one?" and len(words) > 1:
        return None
    if positional == "one" and len(words) != 1:
        return None
    if positional == "rest" and not words:
        return None
    values["words"] = words
    return dirs, color, command, values


def fast_main(argv: list[str]) -> int | None:
    """Run a ws command without typer; None means "let the typer app handle this argv"."""
    parsed = parse(argv)
    if parsed is None:
        return None
    dirs, color, command, values = parsed
    json_mode = bool(values.get("--json"))
    try:
        for d in dirs:
            try:
                os.chdir(d)
            except OSError:
                return None  # the typer app reports bad-directory with its usual wording
        from pylon.cli import ws_handlers

        ws_handlers.set_color(color)
        return ws_handlers.dispatch(command, values)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except Exception as exc:  # noqa: BLE001 - rendered exactly like the typer runner does
        from pylon.cli import runner
        from pylon.errors import PylonError

        if isinstance(exc, PylonError):
            return runner.fail(exc.code, exc.message, exc.hint, int(exc.exit_code), json_mode, exc.details)
        try:
            where = runner._crash_log(exc)
        except OSError:
            where = "(could not write a log file)"
        return runner.fail(
            "internal-error",
            f"pylon hit an unexpected {type(exc).__name__}: {exc}. The traceback was written to {where}.",
            "Please report it with that file; re-running with the same input reproduces it.",
            1,
            json_mode,
            {"log": where},
        )
