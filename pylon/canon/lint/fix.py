"""`canon lint --fix`: only deterministic, safe rewrites of article files.

- pasted front matter: a `---` block of `key: value` lines at the top of the body is removed when
  every line in it agrees with the real front matter (owned keys it lacks are adopted; `updated`
  keeps the real value). A block that disagrees stays, reported.
- capsule folding: line breaks (and the blanks around them) become single spaces, one line.
- quoting: owned values that YAML would misread, or that break the YAML, are written quoted.

Fixes never touch `updated` (a fix is not a change of knowledge) nor any non-owned line, and
never touch journal entries. Files are written with `atomic_write`; a second run changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pylon.canon.frontmatter import OWNED, Document, decode_value, fold_capsule, needs_quotes, parse
from pylon.canon.lint.findings import Finding
from pylon.canon.lint.rules_article import _plain_single, _typed
from pylon.canon.lint.yamlcheck import front_matter_yaml_problems
from pylon.canon.pasted import find_pasted

_KEY_VALUE = re.compile(r"^([A-Za-z_][A-Za-z0-9_ .-]*?)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$")


@dataclass
class FixOutcome:
    text: str
    fixed: list[str] = field(default_factory=list)  # rule ids, one per applied fix

    @property
    def changed(self) -> bool:
        return bool(self.fixed)


def _drop_pasted(doc: Document) -> str | None:
    """Remove an agreeing pasted block from the body; returns the rule id when it did."""
    pasted = find_pasted(doc.body)
    if pasted is None:
        return None
    raw_lines = {line.rstrip("\r\n") for line in doc.fm_lines}
    adopt: dict[str, str] = {}
    for line in pasted.lines:
        match = _KEY_VALUE.match(line)
        if not match:
            return None
        key, raw = match.group(1), match.group(2) or ""
        if key in OWNED:
            try:
                value = decode_value(raw)
            except ValueError:
                return None
            current = doc.owned.get(key)
            if key == "updated" or current == value:
                continue
            if current is None or not current.strip():
                adopt[key] = value
                continue
            return None  # disagrees with the real front matter: a person must choose
        if line not in raw_lines:
            return None  # a foreign key the real front matter lacks would be lost
    doc.body = doc.body[pasted.end :]  # the blank lines around the block go with it
    for key in OWNED:
        if key in adopt:
            doc.set(key, adopt[key])
    return "pasted-front-matter"


def _fold_capsule(doc: Document) -> str | None:
    if "capsule" not in doc.spans:
        return None
    start, end = doc.spans["capsule"]
    value = doc.owned["capsule"]
    if end - start <= 1 and "\n" not in value:
        return None
    folded = fold_capsule(value)
    if not folded:
        return None
    doc.set("capsule", folded)
    return "capsule-multiline"


def _quote_owned(doc: Document) -> list[str]:
    """Quote owned values YAML misreads, then (if the YAML is still broken) any that need quotes."""
    if doc.problems:
        return []
    fixed: list[str] = []
    for key in [k for k in OWNED if k in doc.spans]:
        if _plain_single(doc, key) and _typed(key, doc.owned[key]):
            doc.set(key, doc.owned[key])
            fixed.append("unquoted-value")
    if front_matter_yaml_problems(doc):
        keys = [k for k in OWNED if k in doc.spans and _plain_single(doc, k) and needs_quotes(doc.owned[k])]
        if keys:
            lines_before = list(doc.fm_lines)
            spans_before = dict(doc.spans)
            for key in keys:
                doc.set(key, doc.owned[key])
            if front_matter_yaml_problems(doc):
                # Quoting did not make it valid YAML: the real problem is elsewhere; undo.
                doc.fm_lines = lines_before
                doc.spans = spans_before
                doc._reindex()
            else:
                fixed.append("unquoted-value")
    return fixed


def fix_text(text: str, findings: list[Finding]) -> FixOutcome:
    """Apply the safe fixes the `findings` of this text call for; `text` is returned when none apply."""
    wanted = {f.rule for f in findings if f.fixable}
    if not wanted:
        return FixOutcome(text)
    doc = parse(text)
    if doc.problems:
        return FixOutcome(text)
    fixed: list[str] = []
    if "pasted-front-matter" in wanted:
        rule = _drop_pasted(doc)
        if rule:
            fixed.append(rule)
    if "capsule-multiline" in wanted:
        rule = _fold_capsule(doc)
        if rule:
            fixed.append(rule)
    if "unquoted-value" in wanted:
        fixed += _quote_owned(doc)
    new = doc.render()
    if new == text:
        return FixOutcome(text)
    return FixOutcome(new, fixed)
