"""Checking one article against its store's schema (schema.py reads the schema): the fields a
rule looks at (capsule, title, body, outgoing links), `canon lint`'s findings and `canon write`'s
refusals. Apart from schema.py because the writers and lint need it, and reading the file does not.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs start-up time on every `canon read`; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Iterable

    from pylon.canon.frontmatter import Document
    from pylon.canon.schema import Rule, Schema


class Violation:
    """One article against one schema rule. `required` violations are errors, bounds warnings."""

    __slots__ = ("field", "required", "message", "line")

    def __init__(self, field: str, required: bool, message: str, line: int = 1) -> None:
        self.field = field  # capsule | title | body | relations.refs
        self.required = required
        self.message = message
        self.line = line  # 1-based line in the article file


def title_of(body: str) -> tuple[str | None, int]:
    """The body's leading `# ` heading (first non-blank line) and its 0-based line in the body."""
    stripped = body.lstrip()
    if not stripped:
        return None, 0
    index = body.count("\n", 0, len(body) - len(stripped))
    end = stripped.find("\n")
    line = (stripped if end < 0 else stripped[:end]).rstrip("\r")
    return _heading_text(line), index


def _heading_text(line: str) -> str | None:
    """The text of a `# ` heading line, as the regex `#[ \t]+(.*?)[ \t]*#*[ \t]*$` (matched at the
    start) captures it: closing #s and blanks dropped. None when `line` is no such heading."""
    if line[:1] != "#" or line[1:2] not in (" ", "\t"):
        return None
    return line[1:].lstrip(" \t").rstrip(" \t").rstrip("#").rstrip(" \t")


def field_values(doc: Document) -> dict[str, str]:
    title, _ = title_of(doc.body)
    return {"capsule": doc.owned.get("capsule", "").strip(), "title": (title or "").strip(), "body": doc.body.strip()}


def distinct_refs(targets: Iterable[str]) -> int:
    """How many distinct references the link targets make, counted as pi-canon counts them: the
    part before any `#` anchor, trimmed, case-folded (`[[A]]`, `[[a]]` and `[[ a#x ]]` are one)."""
    return len({key for key in (t.partition("#")[0].strip().lower() for t in targets) if key})


def ref_count(doc: Document) -> int:
    """Distinct outgoing link targets (see distinct_refs), ignoring links inside code."""
    from pylon.canon.links import extract_links

    return distinct_refs(link.target for link in extract_links(doc.body))


def _field_line(doc: Document, name: str) -> int:
    if name == "capsule":
        span = doc.spans.get("capsule")
        return 2 + span[0] if span else 1
    if name == "title":
        return doc.body_line + title_of(doc.body)[1]
    return doc.body_line


def _hinted(message: str, rule: Rule) -> str:
    return f"{message} ({rule.hint})" if rule.hint else message


def check_article(schema: Schema, doc: Document, refs: int | None = None) -> list[Violation]:
    """Every rule the article breaks: missing required fields (errors) and bounds (warnings).

    `refs` is the article's outgoing link count when the caller has already extracted the links."""
    out: list[Violation] = []
    if schema.empty:
        return out
    values = field_values(doc)
    for name, rule in schema.fields.items():
        value = values[name]
        line = _field_line(doc, name)
        label = "a title (a leading '# ' heading)" if name == "title" else f"a {name}"
        if rule.required and not value:
            out.append(Violation(name, True, _hinted(f"schema.json requires {label}", rule), line))
            continue
        if not value:
            continue
        if rule.min_chars is not None and len(value) < rule.min_chars:
            out.append(
                Violation(
                    name,
                    False,
                    _hinted(f"{name} has {len(value)} characters, under the schema minimum of {rule.min_chars}", rule),
                    line,
                )
            )
        if rule.max_chars is not None and len(value) > rule.max_chars:
            out.append(
                Violation(
                    name,
                    False,
                    _hinted(f"{name} has {len(value)} characters, over the schema maximum of {rule.max_chars}", rule),
                    line,
                )
            )
    if schema.refs is not None and (schema.refs.required or schema.refs.min_chars is not None):
        # Only a rule that can be broken costs the link scan (and the re it imports): the default
        # schema's refs rule has neither `required` nor `min_count`.
        rule = schema.refs
        count = ref_count(doc) if refs is None else refs
        if rule.required and count == 0:
            out.append(
                Violation(
                    "relations.refs",
                    True,
                    _hinted("schema.json requires at least one [[link]] to another article", rule),
                    doc.body_line,
                )
            )
        elif rule.min_chars is not None and count < rule.min_chars:
            out.append(
                Violation(
                    "relations.refs",
                    False,
                    _hinted(f"{count} outgoing [[link]](s), under the schema minimum of {rule.min_chars}", rule),
                    doc.body_line,
                )
            )
    return out


def required_violations(schema: Schema, old_doc: Document | None, new_doc: Document) -> list[str]:
    """Messages for `required` rules a write breaks: it creates the article (`old_doc` is None) or
    touches the field. `title` and `relations.refs` live in the body, so they are touched whenever
    the body changes. An empty list means the write may proceed."""
    if schema.empty:
        return []
    out: list[str] = []
    old_values = field_values(old_doc) if old_doc is not None else None
    new_values = field_values(new_doc)
    body_changed = old_values is None or old_values["body"] != new_values["body"]
    for violation in check_article(schema, new_doc):
        if not violation.required:
            continue
        if old_values is None:
            touched = True
        elif violation.field in ("title", "body", "relations.refs"):
            touched = body_changed
        else:
            touched = old_values[violation.field] != new_values[violation.field]
        if touched:
            out.append(violation.message)
    return out


def bound_violations(schema: Schema, doc: Document) -> list[str]:
    """Advice for `canon write`: the bounds (min/max) the article falls outside of."""
    return [v.message for v in check_article(schema, doc) if not v.required]
