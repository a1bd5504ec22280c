"""Rules for journal entries: file names, front matter, subjects. Entries are never fixed."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from pylon.canon.frontmatter import parse
from pylon.canon.journal import parse_entry
from pylon.canon.links import link_address
from pylon.canon.lint.context import LintContext
from pylon.canon.lint.findings import ERROR, WARNING, Finding, finding
from pylon.canon.lint.yamlcheck import front_matter_yaml_problems
from pylon.canon.subjects import JOURNAL_NAME
from pylon.errors import PylonError

# parse_entry problems that mean the entry cannot be read as written; the rest (a missing
# `logged`, say) are warnings, since a committed entry can never be edited to fix them.
_BROKEN = ("never closed", "given twice", "malformed", "subject item")


def name_problem(name: str) -> str | None:
    match = JOURNAL_NAME.match(name)
    if not match:
        return f"{name!r} is not named <YYYY-MM-DD>-<slug>[-N].md (lower-case slug; log entries with canon journal)"
    try:
        date.fromisoformat(match.group(1))
    except ValueError:
        return f"{name!r} starts with {match.group(1)}, which is not a calendar date"
    return None


def list_journal(folder: Path) -> list[tuple[str, bool]]:
    """(name, is_dir) of the journal folder's entries, sorted; dot-files (.gitkeep) are skipped."""
    out: list[tuple[str, bool]] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            out.append((entry.name, is_dir))
    out.sort()
    return out


def _subject_line(lines: list[str]) -> int:
    for i, line in enumerate(lines):
        if line.startswith(("subject:", "subjects:")):
            return i + 2
    return 1


def entry_rules(ctx: LintContext, name: str, text: str, rel: str) -> list[Finding]:
    out: list[Finding] = []
    doc = parse(text)
    for problem in doc.problems:
        out.append(finding("front-matter-invalid", problem.message, rel, problem.line))
    if not doc.problems:
        out += [finding("front-matter-invalid", p.message, rel, p.line) for p in front_matter_yaml_problems(doc)]
    entry = parse_entry(name, text)
    subject_line = _subject_line(doc.fm_lines)
    for issue in entry.problems:
        if issue.startswith(name) or "never closed" in issue and doc.problems:
            continue  # the name has its own rule; an unclosed block is reported above
        severity = ERROR if any(word in issue for word in _BROKEN) else WARNING
        line = subject_line if issue.startswith("subject") else 1
        out.append(finding("front-matter-invalid", f"journal entry: {issue}", rel, line, severity=severity))
    mounts = [m for m in ctx.articles if m is not None]
    for subject in entry.subjects:
        try:
            address = link_address(subject, None, mounts)
        except PylonError:
            out.append(finding("unknown-subject", f"subject {subject!r} climbs above the root", rel, subject_line))
            continue
        if address.path and ctx.has_article(address.mount, address.path):
            continue
        governing = next((a for a in address.ancestors()[1:] if ctx.has_article(a.mount, a.path)), None)
        extra = f" ({governing} governs it)" if governing else ""
        out.append(finding("unknown-subject", f"subject {subject!r} names no article{extra}", rel, subject_line))
    return out
