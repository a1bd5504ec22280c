"""Handlers of `pylon ws diff|cat|run|watch`: the commands whose output streams or passes through."""

from __future__ import annotations

import sys

from pylon.cli import output
from pylon.cli.output import err as note
from pylon.cli.ws.core import checkout
from pylon.cli.ws.render import emit, human, print_notes, render_files, show_path, since_name, since_note
from pylon.cli.ws.render import emit_line as json_line

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from pylon.cli.ws.core import JsonArgs

    class DiffArgs(JsonArgs, Protocol):
        paths: list[str]
        since: str | None
        max_files: int
        max_lines: int
        max_bytes: int
        out: str | None

    class CatArgs(JsonArgs, Protocol):
        path: str
        base: bool
        since: str | None
        max_bytes: int

    class RunArgs(JsonArgs, Protocol):
        command: list[str]
        limit: int
        max_output: int | None

    class WatchArgs(JsonArgs, Protocol):
        since: str | None
        timeout: float | None
        settle: float


def _painted(chunk: bytes) -> bytes:
    """Colour the diff of whole files in `chunk` like git: file headers bold, hunk lines cyan,
    removals red, additions green (a `---` inside a hunk is a removal, not a header)."""
    out: list[bytes] = []
    in_hunk = False
    for line in chunk.split(b"\n"):
        if line.startswith(b"diff --git "):
            in_hunk = False
        elif line.startswith(b"@@"):
            in_hunk = True
        style = (
            ("cyan" if line.startswith(b"@@") else "green" if line[:1] == b"+" else "red" if line[:1] == b"-" else "")
            if in_hunk
            else ("bold" if line else "")
        )
        text = line.decode("utf-8", "surrogateescape")
        out.append(output.paint(text, style).encode("utf-8", "surrogateescape") if style else line)
    return b"\n".join(out)


def _rest_command(args: DiffArgs) -> str:
    import shlex

    words = ["pylon", "ws", "diff"] + (["--since", args.since] if args.since else [])
    quoted = [shlex.quote(w) for w in words] + ["--output", "FILE"]
    if args.paths:
        quoted += ["--", *[shlex.quote(p) for p in args.paths]]
    return " ".join(quoted)


def diff(args: DiffArgs) -> int:
    from pylon.workspace.tracking import diff as wd

    co = checkout()
    chunks: list[bytes] = []
    colour = not args.json and output.color_enabled(sys.stdout)
    sink: Callable[[bytes], object]
    if args.json:
        sink = chunks.append
    else:
        sink = (lambda b: sys.stdout.buffer.write(_painted(b))) if colour else sys.stdout.buffer.write
    result = wd.diff(
        co,
        sink,
        since=args.since,
        paths=list(args.paths),
        max_files=args.max_files,
        max_lines=args.max_lines,
        max_bytes=args.max_bytes,
        out_path=args.out,
    )
    sys.stdout.buffer.flush()
    if args.json:
        from pylon.jsonbytes import bytes_fields

        result.update(bytes_fields("diff", b"".join(chunks)))  # `diff_b64` when it is not UTF-8
        emit(result)
        return 0
    since_note(co, result, args.since)
    if "out" in result:
        output.out(f"{result['out']}\n")
        note(
            f"pylon: wrote the complete diff of {result['files_total']} files ({human(_int(result['bytes_written']))})"
        )
    elif result["truncated"]:
        note(cut_note(result, _rest_command(args)))
    elif not result["files_total"]:
        note(f"pylon: no changes since {since_name(result)}")
    print_notes(result["notes"])
    return 0


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


def cut_note(result: dict[str, object], rest: str) -> str:
    """The one note that ends a cut diff: what was shown, what was left out, how to get it all."""
    left = result["left_out"]
    assert isinstance(left, dict)
    parts = []
    if left["files_not_diffed"]:
        parts.append(f"{left['files_not_diffed']} more files not diffed")
    if left["files_cut"] or left["lines"]:
        parts.append(f"{left['lines']} lines ({human(_int(left['bytes']))}) of {left['files_cut']} diffed files")
    if left["partial_file"]:
        parts.append(f"the rest of {show_path(str(left['partial_file']))}")
    if left["oversize"]:
        parts.append(f"{len(left['oversize'])} oversize files (> 1 MiB) skipped")
    binary = result.get("binary")
    if isinstance(binary, list) and binary:
        parts.append(f"{len(binary)} binary files shown as one line each")
    return (
        f"pylon: diff cut at {result['files_shown']} of {result['files_total']} files "
        f"({result['lines_shown']} lines, {human(_int(result['bytes_shown']))}); left out: "
        + "; ".join(parts)
        + f". Complete diff: {rest}"
    )


def cat(args: CatArgs) -> int:
    from pylon.workspace.tracking import cat as wc

    result = wc.cat(checkout(), args.path, base=args.base, since=args.since, max_bytes=args.max_bytes)
    data = result.pop("data")
    assert isinstance(data, bytes)
    if args.json:
        from pylon.jsonbytes import bytes_fields

        fields = {"content": None} if result["binary"] else bytes_fields("content", data)
        result.update(fields)
        result["utf8"] = not result["binary"] and "content_b64" not in fields
        emit(result)
        return 0
    shown = show_path(str(result["path"]))
    if result["binary"]:
        note(f"pylon: {shown} is a binary file ({human(_int(result['size']))}); not printed")
        return 0
    if "symlink" in result:
        note(f"pylon: {shown} is a symlink in {result.get('since')} (target printed)")
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    if result["truncated"]:
        note(
            f"pylon: cut at {human(_int(result['max_bytes']))} of {human(_int(result['size']))}; "
            f"pass --max-bytes {result['size']} to read all of it"
        )
    return 0


def run(args: RunArgs) -> int:
    import shlex

    from pylon.workspace.tracking.run import run as run_command

    result = run_command(
        checkout(), list(args.command), limit=args.limit, stdout_to_stderr=args.json, max_output=args.max_output
    )
    captured = result.get("output")
    if isinstance(captured, dict):
        _bounded_output(captured, args.json)
    if args.json:
        emit(result)
        return _int(result["exit_code"])
    command = result["command"]
    shown = command[0] if isinstance(command, list) and len(command) == 1 else shlex.join(args.command)
    note(f"pylon: `{shown}` exited {result['exit_code']} and changed {result['total']} paths")
    if result["files"]:
        sys.stderr.write(render_files(result["files"], sys.stderr))
    if result["truncated"]:
        # The state before the command is a commit whose tree is the checkout as it was, so
        # `changes --since` it lists the same paths for as long as the checkout stays as left.
        note(
            f"pylon: {result['left_out']} more paths not listed (`pylon ws changes --since {result['before']} "
            f"--limit {result['total']}` lists them all while the checkout stays as the command left it)"
        )
    head, branch = result["head"], result["branch"]
    if isinstance(head, dict) and head["changed"]:
        note(f"pylon: HEAD moved {str(head['before'] or 'unborn')[:12]} -> {str(head['after'] or 'unborn')[:12]}")
    if isinstance(branch, dict) and branch["changed"]:
        note(f"pylon: branch {branch['before'] or '(detached)'} -> {branch['after'] or '(detached)'}")
    if result["index_changed"]:
        note("pylon: the staged index changed")
    if result.get("op"):
        note(f"pylon: `pylon ws undo` reverses what it changed (op {result['op']})")
    return _int(result["exit_code"])


def _bounded_output(captured: dict[str, object], as_json: bool) -> None:
    """--max-bytes: the head and tail on stdout (text) or in the document (JSON, as text fields
    with `_b64` companions when not UTF-8), then where the whole output is."""
    head, tail = captured.pop("head"), captured.pop("tail")
    assert isinstance(head, bytes) and isinstance(tail, bytes)
    omitted = _int(captured["omitted"])
    if as_json:
        from pylon.jsonbytes import bytes_fields

        captured.update(bytes_fields("head", head))
        captured.update(bytes_fields("tail", tail))
        captured["truncated"] = omitted > 0
        return
    sys.stdout.buffer.write(head)
    if omitted:
        if head and not head.endswith(b"\n"):
            sys.stdout.buffer.write(b"\n")
        sys.stdout.buffer.write(f"[... {omitted} bytes left out; all of it: {captured['path']} ...]\n".encode())
        sys.stdout.buffer.write(tail)
    sys.stdout.buffer.flush()
    note(f"pylon: the whole output ({captured['bytes']} bytes) is in {captured['path']}")


def watch(args: WatchArgs) -> int:
    import time

    from pylon.workspace.tracking.watch import watch as watch_checkout

    co = checkout()
    last_head: list[object] = []  # HEAD of the previous batch, so text says when it moved (JSON has `head`)

    if args.json:
        output.start_stream()

    def emit_line(doc: dict[str, object]) -> None:
        if args.json:
            json_line({"ok": True, "event": "batch", **doc})  # one JSON line per batch (bytes kept losslessly)
            return
        head = doc.get("head")
        moved = (
            f" [HEAD {str(last_head[0] or 'unborn')[:12]} -> {str(head or 'unborn')[:12]}]"
            if last_head and last_head[0] != head
            else ""
        )
        last_head[:] = [head]
        files = doc["files"] if isinstance(doc["files"], list) else []
        total = _int(doc["total"])
        names = ", ".join(f"{f['status']} {show_path(str(f['path']))}" for f in files[:10])
        more = f" (+{total - 10} more)" if total > 10 else ""
        flag = " [event queue overflowed: rescanned]" if doc["overflow"] else ""
        since = f" [{doc['total_since']} since {doc['since']}]" if "since" in doc else ""
        stamp = time.strftime("%H:%M:%S")
        tail = f"{since}{moved}{flag}"
        text = f"{stamp} {total} changed: {names}{more}{tail}" if total else f"{stamp} no changes{tail}"
        output.out(text)

    def ready(mode: str) -> None:
        if args.json:
            json_line({"ok": True, "event": "ready", "root": co.root, "mode": mode})
        note(f"pylon: watching {co.root} ({mode}); Ctrl-C to stop")

    watch_checkout(co, emit_line, ready=ready, since=args.since, timeout=args.timeout, settle=args.settle)
    return 0
