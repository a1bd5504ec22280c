"""Text of `pylon sessions` and `pylon tokens`: plain data in, text out."""

from __future__ import annotations

import time

from pylon.cli import output

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any


def _ago(stamp: str | None, now: float) -> str:
    from pylon.sessions.jsonl import epoch

    when = epoch(stamp)
    if when is None:
        return "-"
    s = max(0, int(now - when))
    return (
        f"{s // 86400}d ago"
        if s >= 86400
        else f"{s // 3600}h ago"
        if s >= 3600
        else f"{s // 60}m ago"
        if s >= 60
        else f"{s}s ago"
    )


def _tokens(count: int) -> str:
    from pylon.sessions.statusline import short

    return short(count)


def _cost(cost: float | None) -> str:
    return "-" if cost is None else f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


def _where(doc: dict[str, Any]) -> str:
    if doc["worktree"]:
        return str(doc["worktree"])
    if doc["place"] == "checkout":
        return "checkout"
    return str(doc["root"]).rstrip("/").rsplit("/", 1)[-1] if doc["root"] else "-"


def row(doc: dict[str, Any], now: float) -> tuple[str, ...]:
    return (
        doc["client"],
        doc["id"][:8],
        _where(doc),
        doc["phase"],
        _ago(doc["last_activity"], now),
        str(doc["tool_calls"]),
        str(doc["errors"]),
        str(doc["retries"]),
        _tokens(doc["tokens"]["total"]),
        _cost(doc["cost"]),
    )


HEADER = ("CLIENT", "SESSION", "WORKTREE", "PHASE", "LAST", "CALLS", "ERRORS", "RETRIES", "TOKENS", "COST")


def table(doc: dict[str, Any]) -> str:
    where = doc["repository"] or "the clients' folders"
    if not doc["sessions"]:
        return f"no Claude Code or Codex session in {where}\n"
    now = time.time()
    rows = [HEADER] + [row(s, now) for s in doc["sessions"]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    right = {5, 6, 7, 8, 9}
    lines = [
        "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
        for r in rows
    ]
    tail = f"{doc['total']} session(s) in {where}"
    if doc["skipped_lines"]:
        tail += f"; {doc['skipped_lines']} unreadable or foreign transcript line(s) skipped"
    return "\n".join(lines) + "\n" + tail + "\n"


def stream(events: Iterator[dict[str, Any]], json_: bool) -> int:
    """`--watch`: one JSON object a line, or a table row per changed session."""
    if json_:
        output.start_stream()
    for item in events:
        kind = str(item.pop("event"))
        if json_:
            output.event_json(kind, item)
        elif kind == "ready":
            output.out("  ".join(HEADER))
            for doc in item["sessions"]:
                output.out("  ".join(row(doc, time.time())))
            output.err("watching the clients' transcripts (Ctrl-C stops)")
        elif kind == "session":
            output.out("  ".join(row(item["session"], time.time())))
        elif kind == "gone":
            output.out(f"{item['client']}  {item['id'][:8]}  gone")
    return 0


def _size(count: int) -> str:
    return (
        f"{count} B"
        if count < 1024
        else f"{count / 1024:.1f} KiB"
        if count < 1024 * 1024
        else f"{count / 1024 / 1024:.1f} MiB"
    )


def tokens(doc: dict[str, Any]) -> str:
    s = doc["session"]
    t = s["tokens"]
    lines = [
        (
            f"session {s['id']} ({s['client']}, {_where(s)}, {s['phase']}): {t['total']:,} tokens "
            f"(input {t['input']:,}, cache reads {t['cached_input']:,}, cache writes {t['cache_creation']:,}, "
            f"output {t['output']:,}, of it reasoning {t['reasoning']:,}), cost {_cost(s['cost'])}"
        )
    ]
    cache = doc["cache"]
    if cache["hit_rate"] is not None:
        lines.append(f"prompt cache: {cache['hit_rate']:.0%} of {cache['prompt_tokens']:,} input tokens read from it")
    lines.append(f"tool payloads, estimated at {doc['bytes_per_token']} bytes a token:")
    header = ("TOOL", "CALLS", "ERRORS", "RETRIES", "INPUT", "~TOKENS", "RESULTS", "~TOKENS")
    rows = [header] + [
        (
            r["tool"],
            str(r["calls"]),
            str(r["errors"]),
            str(r["retries"]),
            _size(r["input_bytes"]),
            f"{r['input_tokens']:,}",
            _size(r["result_bytes"]),
            f"{r['result_tokens']:,}",
        )
        for r in doc["tools"]
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines += (
        [
            "  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
            for r in rows
        ]
        if doc["tools"]
        else ["  (no tool calls)"]
    )
    rr = doc["repeated_reads"]
    lines.append(
        f"repeated reads: {rr['count']} (the same region of a file read again with no edit between), "
        f"~{rr['tokens']:,} tokens"
    )
    fe = doc["failed_edits"]
    lines.append(f"failed edits: {fe['count']}, retried {fe['retried']}; ~{fe['tokens']:,} tokens on the failures")
    pr, pe = doc["pylon"]["read"], doc["pylon"]["edit"]
    if pr["calls"]:
        whole = (
            (
                f"; whole-file reads of the same files ~{pr['whole_file_tokens']:,} tokens "
                f"(~{pr['saved_tokens']:,} saved)"
            )
            if pr["measured_calls"]
            else ""
        )
        lines.append(
            f"pylon read: {pr['calls']} call(s) on {pr['files']} file(s), ~{pr['tokens']:,} tokens shown{whole}"
        )
    if pe["calls"]:
        lines.append(f"pylon edit: {pe['calls']} call(s), {pe['failed']} failed, {pe['retried']} retried")
    return "\n".join(lines) + "\n"
