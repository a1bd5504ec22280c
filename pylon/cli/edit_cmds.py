"""`pylon read` and `pylon edit`: numbered reads and tag-checked whole-line edits.

Thin layer: parse options, call pylon.workspace.edits, render. Plain command lines reach
`do_read` / `do_edit` through the typer-free front door (pylon/cli/fastpath.py with the option
sets in pylon/cli/edit_fast.py); help and anything unusual go through the typer apps below, which
are built lazily (`read_app`, `edit_app`) and call the same functions. This module therefore
imports no typer at module level, and no `from __future__ import annotations` (the typer
signatures are evaluated where typer is bound).
"""

import sys

TYPE_CHECKING = False  # typing costs start-up time; annotations below are strings where needed
if TYPE_CHECKING:
    from typing import Any


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
