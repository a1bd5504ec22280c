"""Handlers of the `pylon ws` commands: call pylon.workspace, render text or JSON, return the exit.

Shared by the typer app (ws_cmds.py, used for help and usage errors) and the typer-free fast path
(ws_fast.py). Nothing here imports typer or rich.
"""

from __future__ import annotations


# Shared renderers under the names these handlers use: `emit` one JSON document, `out` data as
# given, `note` a line on stderr.
from pylon.cli.output import err as note  # noqa: E402
from pylon.cli.output import ok_json as emit  # noqa: E402
from pylon.cli.output import write as out  # noqa: E402


def show_path(path: str) -> str:
    """Quote a path like git does when it holds control characters, quotes or backslashes."""
    if any(ch in path for ch in '"\\') or any(ord(ch) < 32 or ord(ch) == 127 for ch in path):
        body = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        body = "".join(ch if ord(ch) >= 32 and ord(ch) != 127 else f"\\{ord(ch):03o}" for ch in body)
        return f'"{body}"'
    return path


def print_notes(notes: list[dict[str, str]]) -> None:
    for item in notes:
        note(f"note: {item['message']}")


def checkout():  # type: ignore[no-untyped-def]
    from pylon.workspace.repo import locate

    return locate()


# ---------------------------------------------------------------- commands


def do_baseline(values: dict[str, object]) -> int:
    from pylon.workspace import baseline as bl

    words = values["words"]
    name = str(words[0]) if words else "last"  # type: ignore[index]
    co = checkout()
    if values.get("--delete"):
        result = bl.delete(co, name)
        if values.get("--json"):
            emit(result)
        else:
            out(f"deleted baseline {name} (was {str(result['deleted'])[:12]})\n")
        return 0
    result = bl.baseline(co, name)
    if values.get("--json"):
        emit(result)
        return 0
    head = str(result["head"])[:12] if result["head"] else "unborn"
    where = f"on {result['branch']}" if result["branch"] else "detached"
    line = f"baseline {name}: {str(result['commit'])[:12]} (HEAD {head} {where})"
    if result["replaced"]:
        line += f", replaced {str(result['replaced'])[:12]}"
    out(line + "\n")
    print_notes(result["notes"])  # type: ignore[arg-type]
    return 0


def _counts(item: dict[str, object]) -> str:
    if item["binary"]:
        return "binary"
    if item["status"] == "mode":
        return f"{item.get('old_mode')}->{item.get('new_mode')}"
    return f"+{item['additions']} -{item['deletions']}"


def render_files(files: list[dict[str, object]]) -> str:
    lines = [f"{str(f['status']):<9}{_counts(f):<16}{show_path(str(f['path']))}\n" for f in files]
    return "".join(lines)


def _limit(values: dict[str, object], default: int = 200) -> int:
    limit = values.get("--limit")
    if limit is None:
        return default
    if int(limit) < 1:  # type: ignore[arg-type]
        from pylon.errors import UsageError

        raise UsageError("usage", f"--limit must be at least 1, not {limit}.", "pylon ws changes --limit 200")
    return int(limit)  # type: ignore[arg-type]


def do_changes(values: dict[str, object]) -> int:
    from pylon.workspace.changes import changes

    co = checkout()
    limit = _limit(values)
    result = changes(co, values.get("--since"), limit)  # type: ignore[arg-type]
    if values.get("--json"):
        emit(result)
        return 0
    out(render_files(result["files"]))  # type: ignore[arg-type]
    since = result["since"]["name"]  # type: ignore[index]
    if result["truncated"]:
        note(
            f"pylon: showed {limit} of {result['total']} changed paths since {since}; "
            f"{result['left_out']} left out (`pylon ws changes --limit {result['total']}` lists all)"
        )
    elif not result["total"]:
        note(f"pylon: no changes since {since}")
    print_notes(result["notes"])  # type: ignore[arg-type]
    return 0


def do_fingerprint(values: dict[str, object]) -> int:
    from pylon.workspace.fingerprint import fingerprint

    result = fingerprint(checkout())
    if values.get("--json"):
        emit(result)
    else:
        out(f"{result['fingerprint']}\n")
        print_notes(result["notes"])  # type: ignore[arg-type]
    return 0


def do_status(values: dict[str, object]) -> int:
    from pylon.workspace.status import status

    result = status(checkout())
    if values.get("--json"):
        emit(result)
        return 0
    lines = [f"checkout: {result['root']}" + (" (linked worktree)" if result["linked"] else "")]
    head = result["head"]
    lines.append(
        f"HEAD: {str(head)[:12] if head else 'unborn'} "
        + (f"on {result['branch']}" if result["branch"] else "(detached)")
    )
    if result["in_progress"]:
        lines.append("in progress: " + ", ".join(result["in_progress"]))  # type: ignore[arg-type]
    since = result["default_since"]
    lines.append(f"default --since: {since}")
    baselines = result["baselines"]
    if baselines:
        lines.append("baselines:")
        for b in baselines:  # type: ignore[attr-defined]
            lines.append(f"  {b['name']:<20} {str(b['commit'])[:12]}  {b['captured_at'] or ''}")
    else:
        lines.append("baselines: none (`pylon ws baseline` captures one)")
    lines.append("watch: " + ("running" if result["watching"] else "not running"))
    lines.append(f"owned worktrees: {len(result['worktrees'])}")  # type: ignore[arg-type]
    out("\n".join(lines) + "\n")
    print_notes(result["notes"])  # type: ignore[arg-type]
    return 0


def do_diff(values: dict[str, object]) -> int:
    from pylon.cli.ws_stream_handlers import do_diff as run_diff

    return run_diff(values)


def do_cat(values: dict[str, object]) -> int:
    from pylon.cli.ws_stream_handlers import do_cat as run_cat

    return run_cat(values)


def do_run(values: dict[str, object]) -> int:
    from pylon.cli.ws_stream_handlers import do_run as run_run

    return run_run(values)


def do_watch(values: dict[str, object]) -> int:
    from pylon.cli.ws_stream_handlers import do_watch as run_watch

    return run_watch(values)


HANDLERS = {
    "baseline": do_baseline,
    "changes": do_changes,
    "diff": do_diff,
    "cat": do_cat,
    "fingerprint": do_fingerprint,
    "run": do_run,
    "watch": do_watch,
    "status": do_status,
}


def dispatch(command: str, values: dict[str, object]) -> int:
    return HANDLERS[command](values)
