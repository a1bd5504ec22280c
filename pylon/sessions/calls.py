"""One tool call as pylon keeps it: counts and hashes, never the call's text.

A call is a list (marshal keeps lists as they are; see cache.py): its id, the tool as the client
named it, pylon's label for it (a file read, a file edit, `pylon read`, `pylon edit`, or none),
a hash of its target (the file, or the command), a hash of the file it reads or edits, a key for
the region it reads, the bytes of its input, its time, whether it failed (None until its result
is seen), the bytes of its result, and for `pylon read` the bytes a whole-file read would have
been. The target is what makes a retry: the same tool on the same target after a failure.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ID, TOOL, LABEL, TARGET, PATH, REGION, IN_BYTES, TS, FAILED, OUT_BYTES, WHOLE = range(11)

READ, EDIT, PYLON_READ, PYLON_EDIT = "read", "edit", "pylon-read", "pylon-edit"
EDITS = (EDIT, PYLON_EDIT)
READS = (READ, PYLON_READ)

# The clients' own file tools, by what they do to a file.
_READ_TOOLS = frozenset({"Read", "NotebookRead", "view_image", "read_file"})
_EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit", "apply_patch", "write_file", "edit_file"})
_PATH_KEYS = ("file_path", "notebook_path", "path")
# What else names a call's target, in the order looked for.
_TARGET_KEYS = ("command", "cmd", "url", "query", "pattern", "prompt")


_SHA: list[Any] = []


def digest(text: str) -> str:
    """12 hex digits of the text's SHA-256: enough to tell targets apart, nothing to read back."""
    if not _SHA:  # the constructor looked up once: this runs for every call of every transcript
        from pylon.digest import sha256

        _SHA.append(sha256())
    return str(_SHA[0](text.encode("utf-8", "surrogatepass")).hexdigest()[:12])


def _place(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, path)) if cwd else os.path.normpath(path)


def new(call_id: str, tool: str, given: Any, raw: str, ts: str | None, cwd: str) -> list[Any]:
    """The record of one call: `given` is its input as decoded (a dict, or the text of a freeform
    tool such as Codex's apply_patch), `raw` the input as the client wrote it (for its size)."""
    record: list[Any] = [call_id, tool, "", "", "", "", len(raw.encode("utf-8", "surrogatepass")), ts, None, 0, -1]
    base = tool.rsplit("__", 1)[-1].rsplit(".", 1)[-1]  # MCP tools: mcp__server__name, namespace.name
    args = given if isinstance(given, dict) else {}
    path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k]), "")
    if tool != base and base in ("read", "edit") and ("path" in args or "target" in args):
        # pylon's own MCP tools (`pylon mcp`: read, edit): path, or target PATH#TAG
        target = str(args.get("path") or str(args.get("target") or "").split("#", 1)[0])
        _file(record, PYLON_READ if base == "read" else PYLON_EDIT, target, cwd, args)
        return record
    if tool in _READ_TOOLS and path:
        _file(record, READ, path, cwd, args)
        return record
    if tool in _EDIT_TOOLS:
        paths = [path] if path else _patch_paths(given if isinstance(given, str) else str(args.get("input") or ""))
        if paths:
            _file(record, EDIT, paths[0] if len(paths) == 1 else "\0".join(sorted(paths)), cwd, {})
            return record
    command = _command(args)
    if command:
        found = _pylon_call(command)
        if found is not None:
            label, target, options = found
            _file(record, label, target, cwd, options)
            record[TARGET] = digest(command)
            return record
        record[TARGET] = digest(command)
        return record
    for key in _TARGET_KEYS:
        if isinstance(args.get(key), str):
            record[TARGET] = digest(args[key])
            return record
    record[TARGET] = digest(raw)
    return record


def _file(record: list[Any], label: str, path: str, cwd: str, args: dict[str, Any]) -> None:
    where = _place(path, cwd) if "\0" not in path else path
    record[LABEL] = label
    record[PATH] = digest(where)
    record[TARGET] = record[PATH]
    if label in READS:
        offset, limit = args.get("offset"), args.get("limit")
        record[REGION] = f"{offset or 1}:{limit or ''}" + (":grep" if args.get("grep") or args.get("pages") else "")
        if label == PYLON_READ:
            record[WHOLE] = _size(where)


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return -1


def _command(args: dict[str, Any]) -> str:
    for key in ("command", "cmd"):
        value = args.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            # Codex's older `shell` tool: ["bash", "-lc", "the command"]
            return value[-1] if len(value) == 3 and value[1] in ("-lc", "-c") else " ".join(value)
    return ""


def _patch_paths(patch: str) -> list[str]:
    """The files an apply_patch body names (`*** Update File: PATH`, Add, Delete)."""
    found = []
    for line in patch.splitlines():
        for head in ("*** Update File: ", "*** Add File: ", "*** Delete File: "):
            if line.startswith(head):
                found.append(line[len(head) :].strip())
    return found


def _pylon_call(command: str) -> tuple[str, str, dict[str, Any]] | None:
    """(label, file, options) when a shell command runs `pylon read FILE` or `pylon edit FILE#TAG`."""
    if "pylon" not in command or ("read" not in command and "edit" not in command):
        return None
    import shlex

    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    for i, word in enumerate(words[:-1]):
        if os.path.basename(word) != "pylon" or words[i + 1] not in ("read", "edit"):
            continue
        options: dict[str, Any] = {}
        target = ""
        j = i + 2
        while j < len(words) and words[j] not in ("&&", "||", ";", "|"):
            word = words[j]
            if word in ("--offset", "--limit", "--grep", "--in", "--tag", "--ops-file") and j + 1 < len(words):
                options[word[2:]] = words[j + 1]
                j += 2
                continue
            if word.startswith("--") and "=" in word:
                key, _, value = word[2:].partition("=")
                options[key] = value
            elif not word.startswith("-") and not target:
                target = word
            j += 1
        if target:
            return (PYLON_READ if words[i + 1] == "read" else PYLON_EDIT), target.split("#", 1)[0], options
    return None


def whole_from_result(record: list[Any], text: str) -> None:
    """For `pylon read` whose file is gone: what a whole-file read would have been, from the
    total line count the read printed (`[lines A-B of N; ...]`, or `total_lines` in JSON) and the
    average size of the lines it showed."""
    if record[LABEL] != PYLON_READ or record[WHOLE] >= 0 or not text:
        return
    total = -1
    marker = text.rfind(" of ")
    if '"total_lines": ' in text:
        digits = text.split('"total_lines": ', 1)[1].split(",", 1)[0].strip()
        total = int(digits) if digits.isdigit() else -1
    elif marker >= 0:
        digits = text[marker + 4 :].split(";", 1)[0].split("]", 1)[0].strip()
        total = int(digits) if digits.isdigit() else -1
    shown = [line for line in text.splitlines() if line[:1].isdigit() and ":" in line]
    if total < 0:
        total = len(shown)
    if shown:
        size = sum(len(line.split(":", 1)[1].encode("utf-8", "surrogatepass")) + 1 for line in shown)
        record[WHOLE] = round(size / len(shown) * total)


def summary(calls: list[list[Any]]) -> tuple[int, dict[str, int], int, int]:
    """(tool calls, calls per tool, failed calls, retries). A retry is a call of a tool on a
    target whose previous call of that tool on that target failed."""
    tools: dict[str, int] = {}
    failed_last: dict[tuple[str, str], bool] = {}
    errors = retries = 0
    for call in calls:
        tools[call[TOOL]] = tools.get(call[TOOL], 0) + 1
        key = (call[TOOL], call[TARGET])
        if failed_last.get(key):
            retries += 1
        if call[FAILED]:
            errors += 1
        failed_last[key] = bool(call[FAILED])
    return len(calls), tools, errors, retries
