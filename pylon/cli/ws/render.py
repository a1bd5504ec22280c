"""Text shared by the `pylon ws` handlers: quoted paths, the change table, notes, the since line."""

from __future__ import annotations

from pylon.cli import output

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Literal, TextIO

    from pylon.workspace.repo import Checkout

# Colour of the status column of `ws changes` / `ws run` on a terminal.
_STATUS_STYLE = {"added": "green", "deleted": "red", "modified": "yellow", "mode": "magenta", "type": "magenta"}


def show_path(path: str) -> str:
    """Quote a path like git does when it holds control characters, quotes or backslashes."""
    if any(ch in path for ch in '"\\') or any(ord(ch) < 32 or ord(ch) == 127 for ch in path):
        body = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        body = "".join(ch if ord(ch) >= 32 and ord(ch) != 127 else f"\\{ord(ch):03o}" for ch in body)
        return f'"{body}"'
    return path


def emit(doc: Mapping[str, object]) -> None:
    """A success document of a ws command, with bytes that are not UTF-8 encoded losslessly."""
    output.ok_json_safe(dict(doc))


def emit_line(doc: dict[str, object]) -> None:
    """One JSON line (`ws watch`), encoded the same way."""
    from pylon.jsonbytes import safe

    output.emit_json(safe(doc))


def print_notes(notes: object) -> None:
    for item in notes if isinstance(notes, list) else []:
        output.err(f"note: {item['message']}")


def _counts(item: dict[str, object]) -> str:
    """`+3 -1`, `binary` or `100644->100755`; both when the content and the mode changed."""
    modes = f"{item['old_mode']}->{item['new_mode']}" if "old_mode" in item else ""
    if item["status"] == "mode":
        return modes
    counts = "binary" if item["binary"] else f"+{item['additions']} -{item['deletions']}"
    return f"{counts} {modes}" if modes else counts


def render_files(files: object, stream: TextIO | None = None) -> str:
    """One line per changed path: status, counts, path (the status coloured on a terminal)."""
    import sys

    lines = []
    for f in files if isinstance(files, list) else []:
        status = str(f["status"])
        cell = output.paint(f"{status:<9}", _STATUS_STYLE.get(status, ""), stream or sys.stdout)
        counts = _counts(f)
        lines.append(f"{cell}{counts:<16}{' ' if len(counts) >= 16 else ''}{show_path(str(f['path']))}\n")
    return "".join(lines)


def since_name(result: dict[str, object]) -> str:
    """The `--since` label a result compares against (`last`, `HEAD`, `main~2`)."""
    since = result.get("since")
    return str(since.get("name")) if isinstance(since, dict) else "HEAD"


def since_note(checkout: Checkout, result: dict[str, object], given: str | None) -> None:
    """`pylon: since start (baseline, 2026-12-01 08:03Z)` on stderr: what the answer compares against."""
    since = result["since"]
    if isinstance(since, dict):
        output.err(f"pylon: since {describe(checkout, since, given is None)}")


def describe(checkout: Checkout, since: dict[str, object], defaulted: bool) -> str:
    """What a comparison is against, for people, from `Since.to_dict()`:
    `start (baseline, 2026-12-01 08:03Z)`, `HEAD (no baseline, commit 1a2b3c4d5e6f)`."""
    import time

    from pylon.workspace.since import baseline_names, captured_at

    label, kind, commit, tree = (str(since.get(k) or "") for k in ("name", "kind", "commit", "tree"))
    if kind in ("baseline", "session") and commit:
        # a session's baseline commit is deterministic (dated like the state it was made from):
        # the session's own creation time is the one that means something
        stamp = session_created(checkout, label[len("session:") :]) if kind == "session" else None
        stamp = stamp or captured_at(checkout, commit)
        when = time.strftime(", %Y-%m-%d %H:%MZ", time.gmtime(stamp)) if stamp else ""
        return f"{label} ({kind}{when})"
    if kind == "empty":
        return "the empty tree (HEAD is unborn and there is no baseline)"
    what = f"commit {commit[:12]}" if commit else f"tree {tree[:12]}"
    if not defaulted:
        return f"{label} ({what})"
    named = baseline_names(checkout)
    if not named:
        return f"{label} (no baseline, {what})"
    shown = ", ".join(named[:5]) + (f" and {len(named) - 5} more" if len(named) > 5 else "")
    return f"{label} ({what}; there is no `last` baseline; named: {shown}, e.g. --since {named[0]})"


def session_created(checkout: Checkout, worktree_id: str) -> int | None:
    """When `ws new` created the session (its registry record), as a Unix time."""
    from pylon.workspace import refs
    from pylon.workspace.commits import from_iso
    from pylon.workspace.worktrees.owned import read_record

    record = read_record(checkout, worktree_id) if refs.valid_name(worktree_id) else None
    return from_iso(str((record or {}).get("created") or ""))


def human(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.1f} MiB"


class conflicts_shown:  # a context manager named for what it does
    """A refusal on conflicts (`apply-conflicts`, `undo-conflicts`, ...) prints its conflict report on
    stderr before the error (text mode only): `report(code, details)` words it, or None for none."""

    def __init__(self, json_mode: bool, report: Callable[[str, dict[str, object]], str | None]) -> None:
        self.json_mode, self.report = json_mode, report

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> Literal[False]:
        code, details = getattr(exc, "code", None), getattr(exc, "details", None)
        if not self.json_mode and isinstance(code, str) and isinstance(details, dict):
            text = self.report(code, details)
            if text:
                output.err(text)
        return False
