"""Handlers of `pylon ws diff|cat|run|watch`: the commands whose output streams or passes through."""

from __future__ import annotations

import shlex
import sys
import time

from pylon.cli.output import emit_json
from pylon.cli.ws_handlers import checkout, emit, note, out, print_notes, render_files, show_path


def _human(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.1f} MiB"


def _positive(values: dict[str, object], name: str, default: int) -> int:
    value = values.get(name)
    if value is None:
        return default
    if int(value) < 0:  # type: ignore[arg-type]
        from pylon.errors import UsageError

        raise UsageError("usage", f"{name} must not be negative, not {value}.", f"pylon ws diff {name} {default}")
    return int(value)  # type: ignore[arg-type]


def _rest_command(values: dict[str, object], result: dict[str, object]) -> str:
    words = ["pylon", "ws", "diff"]
    since = values.get("--since")
    if since:
        words += ["--since", str(since)]
    words += ["--out", "FILE"]
    paths = values.get("words") or []
    if paths:
        words += ["--", *[str(p) for p in paths]]  # type: ignore[union-attr]
    return " ".join(shlex.quote(w) if w != "FILE" else w for w in words)


def do_diff(values: dict[str, object]) -> int:
    from pylon.workspace import diff as wd

    co = checkout()
    json_mode = bool(values.get("--json"))
    chunks: list[bytes] = []
    sink = chunks.append if json_mode else (lambda b: sys.stdout.buffer.write(b))
    result = wd.diff(
        co,
        sink,
        since=values.get("--since"),  # type: ignore[arg-type]
        paths=[str(p) for p in values.get("words") or []],  # type: ignore[union-attr]
        max_files=_positive(values, "--max-files", wd.MAX_FILES),
        max_lines=_positive(values, "--max-lines", wd.MAX_LINES),
        max_bytes=_positive(values, "--max-bytes", wd.MAX_BYTES),
        out_path=values.get("--out"),  # type: ignore[arg-type]
    )
    sys.stdout.buffer.flush()
    if json_mode:
        result["diff"] = b"".join(chunks).decode("utf-8", "replace")
        emit(result)
        return 0
    if "out" in result:
        out(f"{result['out']}\n")
        note(f"pylon: wrote the complete diff of {result['files_total']} files ({_human(int(result['bytes_written']))})")  # type: ignore[call-overload]
    elif result["truncated"]:
        note(cut_note(result, _rest_command(values, result)))
    elif not result["files_total"]:
        note(f"pylon: no changes since {result['since']['name']}")  # type: ignore[index]
    print_notes(result["notes"])  # type: ignore[arg-type]
    return 0


def cut_note(result: dict[str, object], rest: str) -> str:
    """The one note that ends a cut diff: what was shown, what was left out, how to get it all."""
    left = result["left_out"]
    assert isinstance(left, dict)
    parts = []
    if left["files_not_diffed"]:
        parts.append(f"{left['files_not_diffed']} more files not diffed")
    if left["files_cut"] or left["lines"]:
        parts.append(f"{left['lines']} lines ({_human(int(left['bytes']))}) of {left['files_cut']} diffed files")
    if left["partial_file"]:
        parts.append(f"the rest of {show_path(str(left['partial_file']))}")
    if left["oversize"]:
        parts.append(f"{len(left['oversize'])} oversize files (> 1 MiB) skipped")
    binary = result.get("binary") or []
    if binary:
        parts.append(f"{len(binary)} binary files shown as one line each")  # type: ignore[arg-type]
    return (
        f"pylon: diff cut at {result['files_shown']} of {result['files_total']} files "
        f"({result['lines_shown']} lines, {_human(int(result['bytes_shown']))}); left out: "  # type: ignore[call-overload]
        + "; ".join(parts)
        + f". Complete diff: {rest}"
    )


def do_cat(values: dict[str, object]) -> int:
    from pylon.workspace import cat as wc

    co = checkout()
    words = values["words"]
    max_bytes = values.get("--max-bytes")
    if max_bytes is not None and int(max_bytes) < 1:  # type: ignore[arg-type]
        from pylon.errors import UsageError

        raise UsageError("usage", f"--max-bytes must be at least 1, not {max_bytes}.", "pylon ws cat PATH --max-bytes 65536")
    result = wc.cat(
        co,
        str(words[0]),  # type: ignore[index]
        base=bool(values.get("--base")),
        since=values.get("--since"),  # type: ignore[arg-type]
        max_bytes=int(max_bytes) if max_bytes is not None else wc.MAX_BYTES,  # type: ignore[arg-type]
    )
    data = result.pop("data")
    assert isinstance(data, bytes)
    if values.get("--json"):
        text = data.decode("utf-8", "replace")
        result["content"] = None if result["binary"] else text
        result["utf8"] = not result["binary"] and "\ufffd" not in text
        emit(result)
        return 0
    if result["binary"]:
        note(f"pylon: {show_path(str(result['path']))} is a binary file ({_human(int(result['size']))}); not printed")  # type: ignore[call-overload]
        return 0
    if "symlink" in result:
        note(f"pylon: {show_path(str(result['path']))} is a symlink in {result.get('since')} (target printed)")
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    if result["truncated"]:
        note(
            f"pylon: cut at {_human(int(result['max_bytes']))} of {_human(int(result['size']))}; "  # type: ignore[call-overload]
            f"pass --max-bytes {result['size']} to read all of it"
        )
    return 0


def do_run(values: dict[str, object]) -> int:
    from pylon.workspace.run import run

    co = checkout()
    json_mode = bool(values.get("--json"))
    limit = values.get("--limit")
    result = run(
        co,
        [str(w) for w in values["words"]],  # type: ignore[union-attr]
        limit=int(limit) if limit else 200,  # type: ignore[arg-type]
        stdout_to_stderr=json_mode,
    )
    if json_mode:
        emit(result)
    else:
        files = result["files"]
        head = result["head"]
        assert isinstance(head, dict)
        command = result["command"]
        assert isinstance(command, list)
        shown = command[0] if len(command) == 1 else shlex.join(command)
        note(f"pylon: `{shown}` exited {result['exit_code']} and changed {result['total']} paths")
        if files:
            sys.stderr.write(render_files(files))  # type: ignore[arg-type]
        if result["truncated"]:
            note(f"pylon: {result['left_out']} more paths not listed (--limit)")
        if head["changed"]:
            note(f"pylon: HEAD moved {str(head['before'])[:12]} -> {str(head['after'])[:12]}")
        if result["index_changed"]:
            note("pylon: the staged index changed")
    return int(result["exit_code"])  # type: ignore[call-overload]


def do_watch(values: dict[str, object]) -> int:
    from pylon.workspace.watch import watch

    co = checkout()
    json_mode = bool(values.get("--json"))

    def emit_line(doc: dict[str, object]) -> None:
        if json_mode:
            emit_json(doc)  # one JSON line per batch (bytes-safe, flushed)
            return
        files = doc["files"]
        assert isinstance(files, list)
        names = ", ".join(f"{f['status']} {show_path(str(f['path']))}" for f in files[:10])
        more = f" (+{int(doc['total']) - 10} more)" if int(doc["total"]) > 10 else ""  # type: ignore[call-overload]
        flag = " [event queue overflowed: rescanned]" if doc["overflow"] else ""
        since = f" [{doc['total_since']} since {doc['since']}]" if "since" in doc else ""
        stamp = time.strftime("%H:%M:%S")
        text = f"{stamp} {doc['total']} changed: {names}{more}{since}{flag}" if doc["total"] else f"{stamp} no changes{since}{flag}"
        out(text + "\n")

    def ready(mode: str) -> None:
        note(f"pylon: watching {co.root} ({mode}); Ctrl-C to stop")

    settle = values.get("--settle")
    watch(
        co,
        emit_line,
        ready=ready,
        since=values.get("--since"),  # type: ignore[arg-type]
        timeout=values.get("--timeout"),  # type: ignore[arg-type]
        settle=float(settle) if settle is not None else 0.2,  # type: ignore[arg-type]
    )
    return 0
