"""`pylon read` and `pylon edit`: numbered reads and tag-checked whole-line edits.

Thin layer: parse options, call pylon.workspace.edits, render. Agents call these two commands
hundreds of times a session and the 40 MB bars leave no room for typer's ~100 ms start-up, so
`pylon.cli.entry` first offers argv to `fast_main`: a small parser for exactly the options
declared below. Anything else (help, an unknown or malformed option) returns None and goes
through the typer apps, which are built lazily (`read_app`, `edit_app`) and call the same
`do_read`/`do_edit`. This module therefore imports no typer at module level, and no
`from __future__ import annotations` (the typer signatures are evaluated where typer is bound).
"""

import sys

TYPE_CHECKING = False  # typing costs start-up time; annotations below are strings where needed
if TYPE_CHECKING:
    from typing import Any

# The options of both commands, shared by the typer declarations and the fast parser:
# name -> number of values (0 for a flag).
READ_OPTIONS = {"--offset": 1, "--limit": 1, "--json": 0}
EDIT_OPTIONS = {
    "--tag": 1, "--ops-file": 1, "--replace": 2, "--delete": 1, "--insert-after": 2, "--insert-before": 2,
    "--rebase": 0, "--dry-run": 0, "--show": 0, "--allow-echo": 0, "--allow-indent-mix": 0, "--json": 0,
}


# -- rendering ---------------------------------------------------------------------------------
def _quote(path: str) -> str:
    import shlex

    return shlex.quote(path)


def render_read(res: "Any") -> str:
    from pylon.workspace.edits.window import numbered

    cut = dict(res.cut)
    out = [f"[{res.path}#{res.tag}]"]
    if res.total_lines == 0:
        out.append("[empty file]")
    out += [numbered(n, text, cut.get(n, 0)) for n, text in res.lines]
    if res.notes:
        out.append("[file has: " + ", ".join(res.notes) + "]")
    if res.next_offset is not None:
        more = f" --limit {res.limit}" if res.limit else ""
        out.append(f"[lines {res.start}-{res.end} of {res.total_lines}; next: pylon read {_quote(res.path)} "
                   f"--offset {res.next_offset}{more}]")
    return "\n".join(out) + "\n"


def _moved_line(res: "Any") -> str | None:
    moved = res.moved()
    if not moved:
        return None
    parts = []
    for os_, oe, ns in moved[:3]:
        ne = ns + oe - os_
        parts.append(f"lines {os_}-{oe} are now {ns}-{ne}" if oe != os_ else f"line {os_} is now {ns}")
    more = f" (and {len(moved) - 3} more moved ranges)" if len(moved) > 3 else ""
    text = ", ".join(parts) + more + "; read them again before editing them."
    return text[0].upper() + text[1:]


def render_edit(res: "Any") -> str:
    from pylon.workspace.edits.window import numbered

    ops = f"{res.applied} operation(s)"
    if res.dry_run:
        return (res.diff or "") + (f"[dry run: {ops} would apply to {res.path}; nothing was written, "
                                   f"#{res.old_tag} is still valid]\n")
    out = []
    if res.rebased:
        moves = ", ".join(f"`{r['header']}` -> `{r['rebased']}`" for r in res.rebased if r["rebased"] != r["header"])
        out.append(f"Rebased onto the current file{': ' + moves if moves else ''}.")
    if res.transformed:
        t = res.transformed
        out.append(f"Applied {ops} to {res.path}, but another process changed it right after the write. "
                   f"Current revision: [{res.path}#{res.new_tag}]; first difference at line {t['first_changed_line']}:")
        out += [numbered(n, text) for n, text in t["lines"]]
        out.append("[only these lines count as seen; read the rest again]")
        return "\n".join(out) + "\n"
    out.append(f"Applied {ops} to {res.path}. New revision: [{res.path}#{res.new_tag}].")
    moved = _moved_line(res)
    if moved:
        out.append(moved)
    for i, win in enumerate(res.shown):
        out.append(f"[{res.path}#{res.new_tag}]" if i == 0 else "[...]")
        cut = dict(win.cut)
        out += [numbered(n, text, cut.get(n, 0)) for n, text in win.lines]
    return "\n".join(out) + "\n"


# -- the commands (shared by both parsers) -------------------------------------------------------
def do_read(path: str, offset: int, limit: int | None, json_: bool) -> None:
    from pylon.workspace.edits import read

    res = read(path, offset, limit)
    if json_:
        from pylon.cli.output import ok_json

        ok_json(res.to_json())
    else:
        sys.stdout.write(render_read(res))


def _request(ops_file: str | None) -> bytes:
    from pylon.errors import UsageError

    if ops_file is not None and ops_file != "-":
        try:
            with open(ops_file, "rb") as fh:
                return fh.read()
        except OSError as exc:
            raise UsageError("usage", f"Cannot read --ops-file {ops_file}: {exc.strerror}.",
                             "pylon edit PATH#TAG --ops-file FILE") from None
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("usage", "No operations given: pipe them on stdin, or use --ops-file or a one-line flag.",
                         "printf 'replace 3\\n+new text\\n' | pylon edit PATH#TAG")
    return sys.stdin.buffer.read()


def do_edit(target: str, tag: str | None, ops_file: str | None, replace: tuple | None, delete: str | None,
            insert_after: tuple | None, insert_before: tuple | None, rebase: bool, dry_run: bool, show: bool,
            allow_echo: bool, allow_indent_mix: bool, json_: bool) -> None:
    from pylon.cli.output import ok_json, warn
    from pylon.errors import Exit, UsageError
    from pylon.workspace.edits import edit, split_target

    path, norm = split_target(target, tag)
    flags = [[p] if p and p[0] is not None else [] for p in (replace, insert_after, insert_before)]
    flags.insert(1, [delete] if delete is not None else [])
    if any(flags):
        if ops_file is not None:
            raise UsageError("usage", "Use either one-line flags or --ops-file, not both.", "pylon edit --help")
        from pylon.workspace.edits.ops import from_flags
        from pylon.workspace.edits.problems import request_error

        request, problems = from_flags(*flags)
        if problems:
            err = request_error(problems, "Fix the flag and run the command again.")
            err.exit_code = Exit.USAGE
            raise err
    else:
        request = _request(ops_file)
    res = edit(path, norm, request, rebase=rebase, dry_run=dry_run, show=show,
               allow_echo=allow_echo, allow_indent_mix=allow_indent_mix)
    for w in res.warnings:
        warn(w)
    if json_:
        ok_json(res.to_json())
    else:
        sys.stdout.write(render_edit(res))


# -- fast path -----------------------------------------------------------------------------------
def _parse(argv: list[str], options: dict[str, int]) -> "tuple[list[str], dict[str, Any]] | None":
    """Positionals and options, or None for anything the typer parser should handle."""
    positional: list[str] = []
    values: dict = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            positional += argv[i + 1 :]
            break
        if arg.startswith("-") and arg != "-":
            name, eq, inline = arg.partition("=")
            count = options.get(name)
            if count is None or name in values or (eq and count != 1):
                return None
            if count == 0:
                values[name] = True
            elif eq:
                values[name] = inline
            else:
                if i + count >= len(argv):
                    return None
                got = argv[i + 1 : i + 1 + count]
                values[name] = got[0] if count == 1 else tuple(got)
                i += count
        else:
            positional.append(arg)
        i += 1
    return positional, values


def _int(value: object) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _globals(argv: list[str]) -> "tuple[list[str], str | None, list[str]] | None":
    """Root options before the command: -C DIR (repeatable), --color WHEN -> (dirs, color, rest)."""
    dirs: list[str] = []
    color = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("read", "edit"):
            return dirs, color, argv[i:]
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
            color = arg[len("--color="):]
            i += 1
        else:
            return None
    return None


def _apply_globals(dirs: list[str], color: str | None) -> None:
    import os

    from pylon.errors import UsageError

    if color is not None:
        from pylon.cli.output import set_color_mode

        set_color_mode(color)
    for d in dirs:
        try:
            os.chdir(d)
        except OSError as exc:
            raise UsageError("bad-directory", f"Cannot run in {d!r}: {exc.strerror}.",
                             "Pass an existing directory to -C.") from None


def fast_main(argv: list[str]) -> int | None:
    """Run `[-C DIR] [--color WHEN] read|edit ...` without typer; None when argv needs typer."""
    split = _globals(argv)
    if split is None or (split[1] is not None and split[1] not in ("auto", "always", "never")):
        return None
    dirs, color, argv = split
    command, rest = argv[0], argv[1:]
    parsed = _parse(rest, READ_OPTIONS if command == "read" else EDIT_OPTIONS)
    if parsed is None or len(parsed[0]) != 1:
        return None
    (target,), opts = parsed
    if command == "read":
        offset = _int(opts.get("--offset", 1))
        limit = _int(opts["--limit"]) if "--limit" in opts else None
        if offset is None or ("--limit" in opts and limit is None):
            return None

        def call() -> None:
            _apply_globals(dirs, color)
            do_read(target, offset, limit, bool(opts.get("--json")))
    elif command == "edit":
        def call() -> None:
            _apply_globals(dirs, color)
            do_edit(target, opts.get("--tag"), opts.get("--ops-file"), opts.get("--replace"), opts.get("--delete"),
                    opts.get("--insert-after"), opts.get("--insert-before"), bool(opts.get("--rebase")),
                    bool(opts.get("--dry-run")), bool(opts.get("--show")), bool(opts.get("--allow-echo")),
                    bool(opts.get("--allow-indent-mix")), bool(opts.get("--json")))
    else:
        return None
    return _guarded(call, argv)


def _guarded(call: "Any", argv: list[str]) -> int:
    """The runner's conventions (error envelope, exit codes, crash log) around a fast command.

    Only a failure pays for importing the runner and the renderer.
    """
    try:
        call()
        return 0
    except BaseException as caught:  # noqa: BLE001 - sorted out below, like the runner does
        error = caught
    import os

    from pylon.cli import output, runner
    from pylon.errors import Exit, PylonError

    json_mode = runner.wants_json(argv)
    if isinstance(error, PylonError):
        return runner.fail(error.code, error.message, error.hint, int(error.exit_code), json_mode, error.details)
    if isinstance(error, KeyboardInterrupt):
        output.err("interrupted")
        return 130
    if isinstance(error, BrokenPipeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    if not isinstance(error, Exception):
        raise error
    try:
        where = runner._crash_log(error)
    except OSError:
        where = "(could not write a log file)"
    return runner.fail(
        "internal-error",
        f"pylon hit an unexpected {type(error).__name__}: {error}. The traceback was written to {where}.",
        "Please report it with that file; re-running with the same input reproduces it.",
        Exit.FAILED, json_mode, {"log": where})


# -- typer apps (built on first use) -------------------------------------------------------------
def _build_apps() -> dict:
    from typing import Annotated

    import typer

    from pylon.cli.common import APP_SETTINGS, JsonOpt

    read_app = typer.Typer(**APP_SETTINGS)
    edit_app = typer.Typer(**APP_SETTINGS)
    from typing import Any

    Pair = tuple[str, str]
    no_pair: Any = (None, None)

    @read_app.command("read")
    def read_cmd(
        path: Annotated[str, typer.Argument(help="File to read (relative to the current folder).", show_default=False)],
        offset: Annotated[int, typer.Option("--offset", metavar="N", help="First line to show (1-based).")] = 1,
        limit: Annotated[int | None, typer.Option("--limit", metavar="N", help="Lines to show (at most 2000).")] = None,
        json_: JsonOpt = False,
    ) -> None:
        """Print PATH with absolute line numbers and a revision tag (at most 2000 lines / 50 KiB).

        Every line printed is recorded as seen for that tag; `pylon edit PATH#TAG` may then change it.
        """
        do_read(path, offset, limit, json_)

    @edit_app.command("edit")
    def edit_cmd(
        target: Annotated[str, typer.Argument(metavar="PATH#TAG", help="File and the tag printed by `pylon read`.",
                                              show_default=False)],
        tag: Annotated[str | None, typer.Option("--tag", metavar="TAG", help="The tag, when PATH is given alone.")] = None,
        ops_file: Annotated[str | None, typer.Option("--ops-file", metavar="FILE",
                                                     help="Read operations from FILE (- for stdin).")] = None,
        replace: Annotated[Pair, typer.Option("--replace", metavar="A[-B] TEXT",
                                              help="Replace lines A-B with the one line TEXT.")] = no_pair,
        delete: Annotated[str | None, typer.Option("--delete", metavar="A[-B]", help="Delete lines A-B.")] = None,
        insert_after: Annotated[Pair, typer.Option("--insert-after", metavar="N TEXT",
                                                   help="Insert the one line TEXT after line N (0: at the top).")] = no_pair,
        insert_before: Annotated[Pair, typer.Option("--insert-before", metavar="N TEXT",
                                                    help="Insert the one line TEXT before line N.")] = no_pair,
        rebase: Annotated[bool, typer.Option("--rebase", help="If the file changed, apply where the untouched "
                                             "target lines are now.")] = False,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Validate and print the diff; write nothing.")] = False,
        show: Annotated[bool, typer.Option("--show", help="Print the changed regions with their new numbers "
                                           "(they count as seen).")] = False,
        allow_echo: Annotated[bool, typer.Option("--allow-echo", help="Allow new text that repeats the line just "
                                                 "outside its range.")] = False,
        allow_indent_mix: Annotated[bool, typer.Option("--allow-indent-mix", help="Allow tab/space indentation "
                                                       "unlike the lines around.")] = False,
        json_: JsonOpt = False,
    ) -> None:
        """Apply whole-line operations to PATH#TAG (text or JSON form on stdin, or one-line flags).

        Text form: `replace A-B`, `delete A-B`, `insert after N`, `insert before N`, `final-newline yes|no`,
        each followed by its new lines prefixed with `+`. Numbers refer to the tagged revision.
        Exit: 0 applied, 1 unknown/stale tag, 2 bad request, 3 suspicious, 4 cannot edit, 5 no change.
        """
        do_edit(target, tag, ops_file, replace, delete, insert_after, insert_before, rebase, dry_run, show,
                allow_echo, allow_indent_mix, json_)

    return {"read_app": read_app, "edit_app": edit_app}


def __getattr__(name: str) -> object:
    if name in ("read_app", "edit_app"):
        apps = _build_apps()
        globals().update(apps)
        return apps[name]
    raise AttributeError(name)
