"""Text rendering of `pylon read` and `pylon edit` results (JSON comes from the results' to_json)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any

    from pylon.workspace.edits.editing import EditResult


# shlex.quote's safe set (letters, digits, `@%+=:,./-_`, ASCII only), without importing shlex
# and re: `pylon read` quotes a path in its "next:" line, and that import costs start-up time.
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def quote(path: str) -> str:
    """`path` quoted for a POSIX shell exactly as shlex.quote quotes it."""
    if not path:
        return "''"
    if _SAFE.issuperset(path):
        return path
    return "'" + path.replace("'", "'\"'\"'") + "'"


def _numbered(res: Any) -> list[str]:
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


def render_read(res: Any) -> str:
    out = _numbered(res)
    if res.next_offset is not None:
        more = f" --limit {res.limit}" if res.limit else ""
        out.append(
            f"[lines {res.start}-{res.end} of {res.total_lines}; next: pylon read {quote(res.path)} "
            f"--offset {res.next_offset}{more}]"
        )
    return "\n".join(out) + "\n"


def render_grep(res: Any) -> str:
    """Like render_read; the last line counts the matches and names the next command when cut."""
    out = _numbered(res)
    pattern = quote(res.pattern)
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
        shown += f"; next: pylon read {quote(res.path)} --grep {pattern}{more} --offset {res.next_offset}"
    out.append(f"[{count}; {shown}]")
    return "\n".join(out) + "\n"


def _moved_line(res: EditResult) -> str | None:
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


def render_edit(res: EditResult) -> str:
    from pylon.workspace.edits.window import numbered

    ops = f"{res.applied} operation(s)"
    if res.dry_run:
        return (res.diff or "") + (
            f"[dry run: {ops} would apply to {res.path}; nothing was written, #{res.old_tag} is still valid]\n"
        )
    out = []
    if res.rebased:
        moves = ", ".join(f"`{r['header']}` -> `{r['rebased']}`" for r in res.rebased if r["rebased"] != r["header"])
        out.append(f"Rebased onto the current file{': ' + moves if moves else ''}.")
    if res.transformed:
        t = res.transformed
        out.append(
            f"Applied {ops} to {res.path}, but another process changed it right after the write. "
            f"Current revision: [{res.path}#{res.new_tag}]; first difference at line {t['first_changed_line']}:"
        )
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
