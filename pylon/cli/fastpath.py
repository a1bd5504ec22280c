"""The typer-free front door shared by the hot commands (canon, pylon read/edit, pylon ws).

Importing typer costs ~100 ms, more than the whole budget of `canon read` or `pylon ws changes`,
and agents call these commands hundreds of times a session. Each hot part declares its commands'
small, fixed option sets as SPECS and a `dispatch(command, words, values)`; this module parses a
plain command line by hand and runs the same handler the typer app calls. Anything it does not
fully understand (help, --version, an unknown, repeated or malformed option, a wrong number of
arguments) returns None before any side effect, and the typer app then parses the same argv and
reports it exactly as usual. tests/cli/test_fastpath.py keeps SPECS in step with the typer apps.
"""

from __future__ import annotations

import os
import sys
from importlib import import_module

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Callable

# Option kinds. PAIR takes two values (`--replace N TEXT`); MULTI and MULTI_PAIR may repeat and
# collect every occurrence in a list (of strings, of pairs).
FLAG, STR, INT, FLOAT, MULTI, PAIR = "flag", "str", "int", "float", "multi", "pair"
MULTI_PAIR = "multi-pair"
_LISTS = (MULTI, MULTI_PAIR)
# Positional shapes: none, one, one? (zero or one), many (one or more), any, rest (a command line).
SHAPES = ("none", "one", "one?", "many", "any", "rest")

# First word of a `pylon` command line -> (module with SPECS + dispatch, group word or None).
PYLON_DOORS = {
    "canon": ("pylon.cli.canon_fast", "canon"),
    "ws": ("pylon.cli.ws_fast", "ws"),
    "read": ("pylon.cli.edit_fast", None),
    "edit": ("pylon.cli.edit_fast", None),
}


def split_globals(argv: list[str]) -> tuple[list[str], str, list[str]] | None:
    """Root options before the first word: -C DIR (repeatable), --color WHEN -> (dirs, color, rest)."""
    dirs: list[str] = []
    color = "auto"
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-C", "--color") and i + 1 < len(argv):
            if arg == "-C":
                dirs.append(argv[i + 1])
            else:
                color = argv[i + 1]
            i += 2
        elif arg.startswith("-C") and len(arg) > 2:
            dirs.append(arg[2:])
            i += 1
        elif arg.startswith("--color="):
            color = arg[len("--color=") :]
            i += 1
        elif arg.startswith("-"):
            return None
        else:
            return (dirs, color, argv[i:]) if color in ("auto", "always", "never") else None
    return None


def _convert(kind: str, raw: str) -> object:
    return int(raw) if kind == INT else float(raw) if kind == FLOAT else raw


def parse_args(args: list[str], options: dict[str, str], shape: str) -> tuple[list[str], dict[str, object]] | None:
    """(positional words, option values) as click would read them, or None for anything unusual.

    Values are pre-filled: flags False, MULTI and MULTI_PAIR [], others None. For shape `rest`,
    everything from the first word (or after `--`) is the command line, and `values["--"]` says
    whether `--` was used.
    """
    values: dict[str, object] = {
        name: False if kind == FLAG else [] if kind in _LISTS else None for name, kind in options.items()
    }
    seen: set[str] = set()
    words: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            words += args[i + 1 :]
            values["--"] = True
            break
        if shape == "rest" and words:
            words += args[i:]
            break
        if arg in ("-h", "--help"):
            return None
        if arg.startswith("-") and arg != "-":
            name, eq, inline = arg.partition("=")
            kind = options.get(name)
            if kind is None or (name in seen and kind not in _LISTS) or (eq and kind in (FLAG, PAIR, MULTI_PAIR)):
                return None
            seen.add(name)
            if kind == FLAG:
                values[name] = True
                i += 1
                continue
            count = 2 if kind in (PAIR, MULTI_PAIR) else 1
            if eq:
                raw = [inline]
                i += 1
            elif i + count < len(args):
                raw = args[i + 1 : i + 1 + count]
                i += 1 + count
            else:
                return None
            try:
                if kind in _LISTS:
                    values[name].append(tuple(raw) if kind == MULTI_PAIR else raw[0])  # type: ignore[union-attr]
                else:
                    values[name] = tuple(raw) if kind == PAIR else _convert(kind, raw[0])
            except ValueError:
                return None
            continue
        words.append(arg)
        i += 1
    counts_ok = {
        "none": not words,
        "one": len(words) == 1,
        "one?": len(words) <= 1,
        "many": len(words) >= 1,
        "any": True,
        "rest": bool(words),
    }
    return (words, values) if counts_ok[shape] else None


def apply_globals(dirs: list[str], color: str) -> None:
    """Apply -C and --color (shared with the typer root callback)."""
    from pylon.cli.output import set_color_mode
    from pylon.errors import UsageError

    set_color_mode(color)
    for d in dirs:
        try:
            os.chdir(d)
        except OSError as exc:
            raise UsageError(
                "bad-directory", f"Cannot run in {str(d)!r}: {exc.strerror}.", "Pass an existing directory to -C."
            ) from None


def guarded(call: Callable[[], int | None], argv: list[str]) -> int:
    """The runner's conventions (error envelope, exit codes, crash log) around a fast command.

    Only a failure pays for importing the runner.
    """
    try:
        return int(call() or 0)
    except SystemExit as exc:  # a handler asking for a specific exit status
        return int(exc.code or 0)
    except BaseException as caught:  # noqa: BLE001 - sorted out by the runner, like any command
        if not isinstance(caught, Exception | KeyboardInterrupt):
            raise
        from pylon.cli.runner import handle_exception

        return handle_exception(caught, argv)


def fast_main(argv: list[str], module_name: str, group: str | None) -> int | None:
    """Run `argv` through the module's SPECS/dispatch without typer; None when typer must handle it."""
    split = split_globals(argv)
    if split is None:
        return None
    dirs, color, rest = split
    if group is not None:
        if rest[:1] != [group]:
            return None
        rest = rest[1:]
    if not rest:
        return None
    module = import_module(module_name)
    spec = module.SPECS.get(rest[0])
    if spec is None:
        return None
    parsed = parse_args(rest[1:], *spec)
    if parsed is None:
        return None
    words, values = parsed
    command = rest[0]

    def call() -> int | None:
        apply_globals(dirs, color)
        return module.dispatch(command, words, values)

    return guarded(call, argv)


def pylon_fast_main(argv: list[str]) -> int | None:
    """The `pylon` front door: find the first word and offer argv to that part's fast path."""
    split = split_globals(argv)
    if split is None or not split[2] or split[2][0] not in PYLON_DOORS:
        return None
    module_name, group = PYLON_DOORS[split[2][0]]
    return fast_main(argv, module_name, group)
