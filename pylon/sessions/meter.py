"""`pylon tokens`: where one session's tokens went, per tool, from counts and hashes only.

A call's payload is measured in bytes as the client wrote it (its input as compact JSON, its
result's text) and estimated in tokens at BYTES_PER_TOKEN bytes each, rounded up: the rule of
thumb both providers give for English text and code (about 4 characters per token). It is an
estimate of what the payload adds to the context, not the provider's count, which the session's
`tokens` are.

- repeated reads: a read of a file region (the same file, offset and limit; for a shell read the
  same command) that succeeded before, with no successful edit of that file in between;
- failed edits: calls of an edit tool (Edit, MultiEdit, Write, NotebookEdit, apply_patch,
  `pylon edit`) that failed, and how many of them were retried (the same tool on the same file);
- pylon's own `read`: the tokens its bounded windows cost against a whole-file read of the same
  files (each file's size when pylon first read the call, or its line count times the average
  line shown when the file is gone).
No text of any prompt, file or command is kept or printed: files are named by hashes.
"""

from __future__ import annotations

from pylon.sessions import calls as C

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pylon.sessions.collect import Session

BYTES_PER_TOKEN = 4


def estimate(size: int) -> int:
    return (max(0, size) + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN


def meter(session: Session) -> dict[str, Any]:
    tools: dict[str, dict[str, int]] = {}
    failed_last: dict[tuple[str, str], bool] = {}
    fresh: dict[str, set[str]] = {}  # file -> regions read since its last edit
    repeats: dict[tuple[str, str], int] = {}
    repeated = {"count": 0, "tokens": 0}
    edits: dict[str, dict[str, int]] = {}
    failed_edits = {"count": 0, "retried": 0, "tokens": 0}
    reads = {"calls": 0, "tokens": 0, "whole_file_tokens": 0, "measured": 0}
    read_files: set[str] = set()
    pylon_edits = {"calls": 0, "failed": 0, "retried": 0}
    for call in session.calls:
        name, label, failed = call[C.TOOL], call[C.LABEL], call[C.FAILED]
        row = tools.setdefault(name, {"calls": 0, "input_bytes": 0, "result_bytes": 0, "errors": 0, "retries": 0})
        row["calls"] += 1
        row["input_bytes"] += call[C.IN_BYTES]
        row["result_bytes"] += call[C.OUT_BYTES]
        key = (name, call[C.TARGET])
        retry = bool(failed_last.get(key))
        row["retries"] += retry
        row["errors"] += bool(failed)
        failed_last[key] = bool(failed)
        cost = estimate(call[C.IN_BYTES]) + estimate(call[C.OUT_BYTES])
        path = call[C.PATH]
        if label in C.READS and path and failed is False:
            region = call[C.REGION]
            if region in fresh.setdefault(path, set()):
                repeated["count"] += 1
                repeated["tokens"] += estimate(call[C.OUT_BYTES])
                repeats[(path, region)] = repeats.get((path, region), 1) + 1
            fresh[path].add(region)
        if label in C.EDITS and path:
            if failed:
                failed_edits["count"] += 1
                failed_edits["tokens"] += cost
                edits.setdefault(path, {"failed": 0, "retried": 0})["failed"] += 1
            if retry:
                failed_edits["retried"] += 1
                edits.setdefault(path, {"failed": 0, "retried": 0})["retried"] += 1
            if failed is False:
                fresh.pop(path, None)
        if label == C.PYLON_READ and failed is False:
            reads["calls"] += 1
            reads["tokens"] += estimate(call[C.OUT_BYTES])
            read_files.add(path)
            if call[C.WHOLE] >= 0:
                reads["whole_file_tokens"] += estimate(call[C.WHOLE])
                reads["measured"] += 1
        if label == C.PYLON_EDIT:
            pylon_edits["calls"] += 1
            pylon_edits["failed"] += bool(failed)
            pylon_edits["retried"] += retry
    rows: list[dict[str, Any]] = []
    for name, row in tools.items():
        rows.append(
            {
                "tool": name,
                **row,
                "input_tokens": estimate(row["input_bytes"]),
                "result_tokens": estimate(row["result_bytes"]),
            }
        )
    rows.sort(key=lambda r: (-(r["input_tokens"] + r["result_tokens"]), r["tool"]))
    return {
        "session": session.to_doc(),
        "bytes_per_token": BYTES_PER_TOKEN,
        "tools": rows,
        "payload": {
            "input_bytes": sum(r["input_bytes"] for r in rows),
            "result_bytes": sum(r["result_bytes"] for r in rows),
            "input_tokens": sum(r["input_tokens"] for r in rows),
            "result_tokens": sum(r["result_tokens"] for r in rows),
        },
        "cache": _cache(session),
        "repeated_reads": {
            **repeated,
            "regions": [
                {"file": f, "region": r, "reads": n} for (f, r), n in sorted(repeats.items(), key=lambda kv: -kv[1])
            ],
        },
        "failed_edits": {**failed_edits, "files": [{"file": f, **n} for f, n in sorted(edits.items())]},
        "pylon": {
            "read": {
                "calls": reads["calls"],
                "files": len(read_files),
                "tokens": reads["tokens"],
                "whole_file_tokens": reads["whole_file_tokens"],
                "measured_calls": reads["measured"],
                "saved_tokens": max(0, reads["whole_file_tokens"] - reads["tokens"]) if reads["measured"] else 0,
            },
            "edit": pylon_edits,
        },
    }


def _cache(session: Session) -> dict[str, Any]:
    """How much of the input the provider served from its prompt cache."""
    t = session.tokens
    prompt = t["input"] + t["cached_input"] + t["cache_creation"]
    return {
        "prompt_tokens": prompt,
        "cached_input": t["cached_input"],
        "cache_creation": t["cache_creation"],
        "hit_rate": round(t["cached_input"] / prompt, 4) if prompt else None,
    }
