"""What `pylon read` and `pylon edit` do once parsed: call pylon.workspace.edits, render.

Shared by the typer apps (edit_cmds.py) and the typer-free front door (edit_fast.py), so it
imports no typer.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing costs start-up time; annotations below are strings where needed
if TYPE_CHECKING:
    from typing import Any

    Pairs = list[tuple[str, str]] | None  # every occurrence of a repeatable two-value flag


# -- rendering ---------------------------------------------------------------------------------
def _quote(path: str) -> str:
    import shlex

    return shlex.quote(path)


def _numbered(res: "Any") -> list[str]:
    """Header, numbered lines (`[...]` where numbers jump, as between grep groups), file notes."""
    from pylon.workspace.edits.window import SEPARATOR, numbered

    cut = dict(res.cut)
    out = [f"[{res.path}#{res.tag}]"]
    if res.total_lines == 0:
        out.append("[empty file]")
    prev = None
    for n, text in res.lines:
        if prev is not None and n != prev + 1:
            out.append(SEPARATOR)
        out.append(numbered(n, text, cut.get(n, 0)))
        prev = n
    if res.notes:
        out.append("[file has: " + ", ".join(res.notes) + "]")
    return out


def render_read(res: "Any") -> str:
    out = _numbered(res)
    if res.next_offset is not None:
        more = f" --limit {res.limit}" if res.limit else ""
        out.append(f"[lines {res.start}-{res.end} of {res.total_lines}; next: pylon read {_quote(res.path)} "
                   f"--offset {res.next_offset}{more}]")
    return "\n".join(out) + "\n"


def render_grep(res: "Any") -> str:
    """Like render_read; the last line counts the matches and names the next command when cut."""
    out = _numbered(res)
    pattern = _quote(res.pattern)
    if res.matches == 0:
        out.append(f"[no line matches {pattern}]")
        return "\n".join(out) + "\n"
    count = "1 line matches" if res.matches == 1 else f"{res.matches} lines match"
    if res.start <= 1 and res.next_offset is None:
        out.append(f"[{count}]")
        return "\n".join(out) + "\n"
    where = f"lines {res.start}-{res.end}"
    shown = f"shown: the {len(res.matched)} in {where}" if res.matched else f"none in {where}"
    if res.next_offset is not None:
        more = (f" --context {res.context}" if res.context else "") + (f" --limit {res.limit}" if res.limit else "")
        shown += f"; next: pylon read {_quote(res.path)} --grep {pattern}{more} --offset {res.next_offset}"
    out.append(f"[{count}; {shown}]")
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
def do_read(path: str, offset: int, limit: int | None, json_: bool, grep: str | None = None,
            context: int | None = None) -> None:
    if grep is not None:
        from pylon.workspace.edits.grep import grep as find

        res = find(path, grep, 0 if context is None else context, offset, limit)
        render = render_grep
    else:
        if context is not None:
            from pylon.errors import UsageError

            raise UsageError("usage", "--context only applies with --grep.",
                             f"pylon read {_quote(path)} --grep PATTERN --context {context}")
        from pylon.workspace.edits.reading import read

        res = read(path, offset, limit)
        render = render_read
    if json_:
        from pylon.cli.output import ok_json

        ok_json(res.to_json())
    else:
        sys.stdout.write(render(res))


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


def do_edit(target: str, tag: str | None, ops_file: str | None, replace: Pairs, delete: list[str] | None,
            insert_after: Pairs, insert_before: Pairs, rebase: bool, dry_run: bool, show: bool,
            allow_echo: bool, allow_indent_mix: bool, json_: bool) -> None:
    from pylon.cli.output import ok_json, warn
    from pylon.errors import Exit, UsageError
    from pylon.workspace.edits.editing import edit, split_target

    path, norm = split_target(target, tag)
    # Every repeat of a flag is one more operation of the same one-snapshot request.
    flags = [list(f or []) for f in (replace, delete, insert_after, insert_before)]
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
