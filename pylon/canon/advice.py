"""Advice printed after writes: lost constraints, growth, and journal values the article lacks.

Plain text heuristics with no imports of the rest of canon, so the journal and the article writer
can both use them; the lint findings a write adds come from pylon.canon.lint.remarks.after_write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CONSTRAINT = re.compile(r"\b(must|never|always|required|do not|don't|don’t)\b", re.IGNORECASE)
QUOTE_MAX = 2
VALUES_MAX = 5


@dataclass
class Advice:
    """One line of advice; `rule` names its kind (stable ids, like lint rule ids)."""

    rule: str
    message: str
    severity: str = "warning"
    line: int | None = None


def constraint_lines(body: str) -> list[str]:
    return [ln.strip() for ln in body.splitlines() if _CONSTRAINT.search(ln)]


def dropped_constraints(old_body: str, new_body: str) -> Advice | None:
    """Lines of the old body stating a constraint that the new body no longer has."""
    kept = {ln.strip() for ln in new_body.splitlines()}
    lost = [ln for ln in dict.fromkeys(constraint_lines(old_body)) if ln not in kept]
    if not lost:
        return None
    quoted = "; ".join(f'"{_clip(ln)}"' for ln in lost[:QUOTE_MAX])
    more = f" (+{len(lost) - QUOTE_MAX} more)" if len(lost) > QUOTE_MAX else ""
    return Advice(
        "dropped-constraint",
        f"the new body drops {len(lost)} line(s) stating a constraint: {quoted}{more}. "
        "If the rule still holds, put it back.",
    )


def growth(old_body: str, new_body: str) -> Advice | None:
    before, after = len(old_body.strip()), len(new_body.strip())
    if after <= before or before == 0:
        return None
    return Advice(
        "body-grew",
        f"the body grew from {before} to {after} characters. Articles carry current state; "
        'narrated history belongs in the journal (canon journal "..." --subject ADDRESS).',
        severity="note",
    )


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- journal values -------------------------------------------------------------------------

_BACKTICKED = re.compile(r"`([^`\n]{1,80})`")
_UNITS = (
    r"ms|us|µs|ns|s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?|d|days?|weeks?|"
    r"[kKMGT]i?B|bytes?|b|KB|kb|mb|gb|tb|%|px|em|rem|rps|qps|req/s|ops/s|x|MHz|GHz|Hz|°C|C|F|k|K|M"
)
_NUMBER_UNIT = re.compile(rf"(?<![\w.])(\d+(?:[.,]\d+)?\s?(?:{_UNITS}))(?![\w/])")
# Identifiers: snake_case, SCREAMING_CASE, camelCase/PascalCase with an inner capital, dotted names.
_IDENT = re.compile(
    r"(?<![\w`])("
    r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+"
    r"|[a-z]+[A-Z][A-Za-z0-9]*"
    r"|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"
    r"|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\(?\)?"
    r")(?![\w`])"
)


def recorded_values(text: str) -> list[str]:
    """Values an entry records: backticked names, numbers with units, identifiers (in order, unique)."""
    found: list[str] = []
    spans: list[tuple[int, int]] = []
    for match in _BACKTICKED.finditer(text):
        found.append(match.group(1).strip())
        spans.append(match.span())

    def outside(pos: int) -> bool:
        return not any(a <= pos < b for a, b in spans)

    for pattern in (_NUMBER_UNIT, _IDENT):
        for match in pattern.finditer(text):
            if outside(match.start()):
                value = match.group(1).rstrip("()")
                # Sentence-ending dots and file names like `e.g.` are not identifiers.
                if (
                    pattern is _IDENT
                    and "." in value
                    and (value.count(".") == len(value.split(".")) - 1)
                    and any(len(part) <= 1 for part in value.split("."))
                ):
                    continue
                found.append(value)
    return [v for v in dict.fromkeys(found) if v]


def _is_test_name(value: str) -> bool:
    # A test's name says what was run, not a fact the article should carry.
    return value.startswith(("test_", "Test")) or "::test_" in value or value.endswith("_test")


def present(value: str, article_text: str) -> bool:
    """`value` appears in the article as a whole token (`42` is not present inside `142`)."""
    if value not in article_text:
        return False
    edge_l = r"(?<![\w.])" if value[:1].isalnum() or value[:1] == "_" else ""
    edge_r = r"(?![\w])" if value[-1:].isalnum() or value[-1:] == "_" else ""
    return re.search(edge_l + re.escape(value) + edge_r, article_text) is not None


def missing_values(text: str, article_text: str) -> list[str]:
    """Recorded values the article does not carry as whole tokens; test names are not facts."""
    return [v for v in recorded_values(text) if not _is_test_name(v) and not present(v, article_text)]


def value_warning(address: str, missing: list[str]) -> Advice:
    shown = ", ".join(f"`{v}`" for v in missing[:VALUES_MAX])
    more = f" (+{len(missing) - VALUES_MAX} more)" if len(missing) > VALUES_MAX else ""
    return Advice(
        "values-not-in-article",
        f"this entry records {shown}{more}, which the article {address} does not carry. "
        f"If they are current truth, put them in the article too: canon write {address} --body-file FILE",
    )
