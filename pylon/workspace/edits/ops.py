"""Parse an edit request (text form or JSON form) into operations, collecting every problem.

Text form: one header per operation (`replace A-B`, `delete A-B`, `insert after N`,
`insert before N`, `final-newline yes|no`), then its new lines, each prefixed with `+`.
JSON form: a list, or `{"edits": [...]}`, of `{"operation", "startLine", "endLine", "line",
"newText", "value"}` objects.
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False  # importing typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any

from pylon.workspace.edits.problems import Problem

KINDS = ("replace", "delete", "insert_after", "insert_before", "final_newline")
JSON_FIELDS = ("operation", "startLine", "endLine", "line", "newText", "value")

_RANGE_RE = re.compile(r"^(replace|delete)\s+(\d+)(?:\s*-\s*(\d+))?$", re.I)
_INSERT_RE = re.compile(r"^insert[\s_-]+(after|before)\s+(\d+)$", re.I)
_FINAL_RE = re.compile(r"^final[\s_-]newline\s+(yes|no|true|false)$", re.I)
_NUMBERED_RE = re.compile(r"^\s*\d+:")


class Op:
    """One operation. start/end: the range for replace/delete; the anchor line (twice) for inserts."""

    __slots__ = ("index", "kind", "start", "end", "lines", "value")

    def __init__(
        self,
        index: int,
        kind: str,
        start: int = 0,
        end: int = 0,
        lines: list[str] | None = None,
        value: bool | None = None,
    ) -> None:
        self.index, self.kind, self.start, self.end = index, kind, start, end
        self.lines = lines if lines is not None else []
        self.value = value  # final_newline only

    def moved(self, shift: int) -> Op:
        return Op(self.index, self.kind, self.start + shift, self.end + shift, self.lines, self.value)

    def __repr__(self) -> str:
        return f"Op({self.index}, {self.header!r}, {len(self.lines)} lines)"

    @property
    def header(self) -> str:
        if self.kind in ("replace", "delete"):
            span = str(self.start) if self.start == self.end else f"{self.start}-{self.end}"
            return f"{self.kind} {span}"
        if self.kind == "final_newline":
            return f"final-newline {'yes' if self.value else 'no'}"
        return f"insert {self.kind.split('_')[1]} {self.start}"

    @property
    def is_range(self) -> bool:
        return self.kind in ("replace", "delete")

    @property
    def is_insert(self) -> bool:
        return self.kind in ("insert_after", "insert_before")


def parse(request: bytes) -> tuple[list[Op], list[Problem]]:
    """Operations and problems of a request in either form (JSON when it starts with [ or {)."""
    try:
        text = request.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [], [Problem("syntax", f"the request is not valid UTF-8 (byte {exc.start}).")]
    if text.startswith("\ufeff"):
        text = text[1:]
    stripped = text.lstrip()
    if not stripped:
        return [], [Problem("syntax", "the request is empty: no operations were given.")]
    if stripped[0] in "[{":
        try:
            doc = json.loads(stripped)
        except ValueError as exc:
            return [], [Problem("syntax", f"the request looks like JSON but does not parse: {exc}.")]
        return parse_json(doc)
    return parse_text(text)


def _split_new_text(value: str) -> list[str]:
    """newText -> lines: one trailing newline is a terminator, `\\r\\n` counts as a line break.

    A `\\r` not followed by `\\n` is content (as in a file), so `"c\\r"` writes a line ending in `\\r`.
    """
    if value == "":
        return []
    if value.endswith("\r\n"):
        value = value[:-2]
    elif value.endswith("\n"):
        value = value[:-1]
    parts = value.split("\n")
    return [p[:-1] if p.endswith("\r") and i < len(parts) - 1 else p for i, p in enumerate(parts)]


def _check_lines(op: Op, problems: list[Problem]) -> None:
    if any("\x00" in line for line in op.lines):
        problems.append(
            Problem("syntax", "the new text contains a NUL character; pylon only writes text.", op.index, op.header)
        )


def parse_text(text: str) -> tuple[list[Op], list[Problem]]:
    ops: list[Op] = []
    problems: list[Problem] = []
    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    if text.count("\r\n") == text.count("\n"):  # a CRLF request: every row ends with \r
        rows = [r[:-1] if r.endswith("\r") else r for r in rows]
    # Otherwise a `\r` at the end of a `+` line is content (a line ending in a lone \r).
    current: Op | None = None
    broken = False  # after a bad header, its `+` lines are skipped instead of reported again
    for no, row in enumerate(rows, start=1):
        if row.startswith("+"):
            if current is not None and current.kind in ("replace", "insert_after", "insert_before"):
                current.lines.append(row[1:])
            elif current is not None:
                problems.append(
                    Problem(
                        "syntax",
                        f"request line {no}: `{current.header.split()[0]}` takes no `+` lines.",
                        current.index,
                        current.header,
                    )
                )
                broken = True
            elif not broken:
                problems.append(Problem("syntax", f"request line {no} is a `+` line before any operation header."))
                broken = True
            continue
        if not row.strip():
            following = next((r for r in rows[no:] if r.strip()), "")
            if following.startswith("+") and current is not None and current.lines:
                problems.append(
                    Problem(
                        "syntax",
                        f"request line {no} is empty inside new text; write an empty new line as a bare `+`.",
                        current.index,
                        current.header,
                    )
                )
            continue
        op = _header(row.strip(), len(ops) + 1)
        if op is None:
            owner = (current.index, current.header) if current is not None else (0, "")
            current, broken = None, True
            if _NUMBERED_RE.match(row):
                problems.append(
                    Problem(
                        "line-number-prefix",
                        f"request line {no} (`{row[:60]}`) looks copied from `pylon read` output; new lines are "
                        "written as `+<content>` without the `N:` prefix.",
                        *owner,
                    )
                )
            else:
                problems.append(
                    Problem(
                        "syntax",
                        f"request line {no} (`{row[:60]}`) is not an operation header; expected `replace A-B`, "
                        "`delete A-B`, `insert after N`, `insert before N` or `final-newline yes|no`.",
                    )
                )
            continue
        ops.append(op)
        current, broken = op, False
    for op in ops:
        if op.kind == "replace" and not op.lines:
            problems.append(
                Problem(
                    "syntax",
                    f"it has no `+` lines; to remove lines write `delete {op.header.split()[1]}`.",
                    op.index,
                    op.header,
                )
            )
        elif op.is_insert and not op.lines:
            problems.append(Problem("syntax", "it has no `+` lines to insert.", op.index, op.header))
        _check_lines(op, problems)
    return ops, problems


def _header(row: str, index: int) -> Op | None:
    if m := _RANGE_RE.match(row):
        start = int(m.group(2))
        end = int(m.group(3)) if m.group(3) else start
        return Op(index, m.group(1).lower(), start, end)
    if m := _INSERT_RE.match(row):
        n = int(m.group(2))
        return Op(index, f"insert_{m.group(1).lower()}", n, n)
    if m := _FINAL_RE.match(row):
        return Op(index, "final_newline", value=m.group(1).lower() in ("yes", "true"))
    return None


def _int(item: dict[str, Any], key: str) -> int | None:
    value = item.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_json(doc: Any) -> tuple[list[Op], list[Problem]]:
    if isinstance(doc, dict):
        if not isinstance(doc.get("edits"), list):
            return [], [Problem("syntax", 'a JSON object request needs an "edits" list.')]
        doc = doc["edits"]
    if not isinstance(doc, list) or not doc:
        return [], [Problem("syntax", "the JSON request has no operations.")]
    ops: list[Op] = []
    problems: list[Problem] = []
    for index, item in enumerate(doc, start=1):
        before = len(problems)
        op = _json_op(item, index, problems)
        if op is not None and len(problems) == before:
            _check_lines(op, problems)
            ops.append(op)
    return ops, problems


def _json_op(item: Any, index: int, problems: list[Problem]) -> Op | None:
    def bad(message: str, header: str = "") -> None:
        problems.append(Problem("syntax", message, index, header or f"edit #{index}"))

    if not isinstance(item, dict):
        bad("each operation must be a JSON object.")
        return None
    unknown = sorted(set(item) - set(JSON_FIELDS))
    if unknown:
        bad(f"unknown field(s) {', '.join(unknown)}; the fields are {', '.join(JSON_FIELDS)}.")
        return None
    kind = item.get("operation")
    if kind not in KINDS:
        bad(f'"operation" must be one of {", ".join(KINDS)}, not {json.dumps(kind)}.')
        return None
    text = item.get("newText")
    if isinstance(text, list) and all(isinstance(t, str) for t in text):
        lines = list(text)
    elif isinstance(text, str):
        lines = _split_new_text(text)
    elif text is None:
        lines = []
    else:
        bad('"newText" must be a string (or a list of lines).')
        return None
    if any(_has_surrogate(line) for line in lines):
        # JSON can spell "\ud800", which is no character: it cannot be written as UTF-8.
        bad(
            '"newText" holds a lone surrogate (such as "\\ud800"), which is not a character and cannot be '
            "written as UTF-8; send the character itself or its surrogate pair."
        )
        return None
    if kind == "final_newline":
        value = item.get("value")
        if isinstance(value, str) and value.lower() in ("yes", "no", "true", "false"):
            value = value.lower() in ("yes", "true")
        if not isinstance(value, bool):
            bad('final_newline needs "value": true or false.')
            return None
        return Op(index, kind, value=value)
    if kind in ("replace", "delete"):
        start = _int(item, "startLine")
        end = _int(item, "endLine") if "endLine" in item else start
        if start is None or end is None:
            bad(f'{kind} needs integer "startLine" (and optional "endLine").')
            return None
        op = Op(index, kind, start, end, lines)
        if kind == "delete" and lines:
            bad('delete takes no "newText"; use "replace" to change lines.', op.header)
            return None
        if kind == "replace" and text is None:
            bad('replace needs "newText" ("" deletes the lines).', op.header)
            return None
        return op
    anchor = _int(item, "line") if "line" in item else _int(item, "startLine")
    if anchor is None:
        bad(f'{kind} needs an integer "line".')
        return None
    op = Op(index, kind, anchor, anchor, lines)
    if not lines:
        bad('an insertion needs a non-empty "newText".', op.header)
        return None
    return op


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _span(text: str) -> tuple[int, int] | None:
    m = re.match(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$", text)
    if not m:
        return None
    start = int(m.group(1))
    return start, int(m.group(2)) if m.group(2) else start


def from_flags(
    replace: list[tuple[str, str]],
    delete: list[str],
    insert_after: list[tuple[str, str]],
    insert_before: list[tuple[str, str]],
) -> tuple[list[Op], list[Problem]]:
    """Operations from one-line flags (`--replace 40 TEXT`, `--delete 40-42`, `--insert-after 7 TEXT`)."""
    ops: list[Op] = []
    problems: list[Problem] = []
    items = [("replace", s, t) for s, t in replace] + [("delete", s, None) for s in delete]
    items += [("insert_after", s, t) for s, t in insert_after] + [("insert_before", s, t) for s, t in insert_before]
    for kind, spec, text in items:
        index = len(ops) + len(problems) + 1
        span = _span(spec)
        flag = "--" + kind.replace("_", "-")
        if span is None or (kind.startswith("insert") and span[0] != span[1]):
            form = "N" if kind.startswith("insert") else "A or A-B"
            problems.append(
                Problem("syntax", f"{flag} takes a line number ({form}), not `{spec}`.", index, f"{flag} {spec}")
            )
            continue
        op = Op(index, kind, span[0], span[1], [] if text is None else [text])
        if text is not None and ("\n" in text or "\r" in text):
            problems.append(
                Problem(
                    "syntax", f"{flag} writes exactly one line; pipe a request on stdin for several.", index, op.header
                )
            )
            continue
        _check_lines(op, problems)
        ops.append(op)
    return ops, problems
