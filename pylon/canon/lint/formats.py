"""Render a LintReport: text lines, one JSON document, GitHub workflow annotations, SARIF 2.1.0.

Paths are relative to the report base (the repository root, else the project root), except in
text, which shows them relative to the current directory so terminals and editors can open them.
"""

from __future__ import annotations

import os

from pylon.canon.lint.findings import RULES, Finding, RuleInfo

# Only what text needs is imported up front (`canon check` in a pre-commit hook prints text);
# json, re, pathlib and urllib load in the renderers that use them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from pylon.canon.lint import LintReport

    Paint = Callable[[str, str], str]

FORMATS = ("text", "json", "github", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# Text shows this many findings unless told otherwise: a store with thousands of dead links
# should not bury the summary (and an agent's context) under them. The other formats are for
# machines and stay complete.
TEXT_LIMIT = 200
# Paint (above): paint(text, style) -> text, possibly wrapped in colour codes; styles are names
# such as "red bold". The caller decides whether colour is on (this library knows nothing of terminals).
SEVERITY_STYLE = {"error": "red bold", "warning": "yellow", "note": "cyan"}
# GitHub workflow commands name the note level `notice`.
_GITHUB_LEVEL = {"note": "notice"}


def _display_path(report: LintReport, finding: Finding, cwd: str | None) -> str:
    if cwd is None:
        return finding.path
    full = os.path.normpath(os.path.join(report.base, finding.path))
    return os.path.relpath(full, cwd).replace(os.sep, "/")


def render_text(
    report: LintReport, cwd: str | None = None, limit: int | None = TEXT_LIMIT, paint: Paint | None = None
) -> str:
    """`<file>:<line>: <severity>[<rule>] <message>` for the first `limit` findings (every one when
    `limit` is None); empty string when clean. With `paint`, the severity is coloured by its level
    and the rule is dimmed. `left_out` says what the limit cut."""
    shown = report.findings if limit is None else report.findings[:limit]
    lines = []
    for f in shown:
        severity, rule = f.severity, f"[{f.rule}]"
        if paint is not None:
            severity, rule = paint(severity, SEVERITY_STYLE.get(severity, "")), paint(rule, "dim")
        lines.append(f"{_display_path(report, f, cwd)}:{f.line}: {severity}{rule} {f.message}\n")
    return "".join(lines)


def left_out(report: LintReport, limit: int | None = TEXT_LIMIT) -> str | None:
    """What render_text with `limit` did not show, counted per rule (most first), with the flag
    that shows everything; None when nothing was cut."""
    rest = [] if limit is None else report.findings[limit:]
    if not rest:
        return None
    from collections import Counter

    per_rule = sorted(Counter(f.rule for f in rest).items(), key=lambda item: (-item[1], item[0]))
    counts = ", ".join(f"{rule} {n}" for rule, n in per_rule)
    noun = "finding" if len(rest) == 1 else "findings"
    return f"... and {len(rest)} more {noun} ({counts}); canon lint --all shows all"


def summary(report: LintReport, strict: bool = False) -> str:
    """One line for stderr: counts, what --fix did or could do."""
    scanned = (
        f"{report.articles} article{'s' * (report.articles != 1)}, {report.journal} journal "
        f"entr{'ies' if report.journal != 1 else 'y'}"
    )
    fixed = sum(len(f.rules) for f in report.fixed)
    tail = (
        f"; fixed {fixed} problem{'s' * (fixed != 1)} in {len(report.fixed)} file{'s' * (len(report.fixed) != 1)}"
        if report.fixed
        else ""
    )
    notes = report.count("note")
    noted = f"; {notes} note{'s' * (notes != 1)}" if notes else ""
    if len(report.findings) == notes:
        return f"canon lint: clean ({scanned}){noted}{tail}."
    fixable = sum(1 for f in report.findings if f.fixable)
    hint = f"; {fixable} fixable with `canon lint --fix`" if fixable else ""
    strict_note = " (--strict: warnings fail)" if strict and report.warnings and not report.errors else ""
    return (
        f"canon lint: {report.errors} error{'s' * (report.errors != 1)}, {report.warnings} "
        f"warning{'s' * (report.warnings != 1)}{strict_note} in {scanned}{noted}{tail}{hint}."
    )


def render_json(report: LintReport, strict: bool = False) -> dict[str, Any]:
    return {
        "clean": not report.failed(strict),
        "strict": strict,
        "errors": report.errors,
        "warnings": report.warnings,
        "notes": report.count("note"),
        "articles": report.articles,
        "journal": report.journal,
        "base": report.base,
        "findings": [f.to_dict() for f in report.findings],
        "fixed": [{"path": f.path, "rules": f.rules} for f in report.fixed],
    }


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: LintReport) -> str:
    """GitHub Actions workflow commands: `::error file=...,line=...,title=...::message`."""
    lines = []
    for f in report.findings:
        props = f"file={_escape_property(f.path)},line={f.line},title={_escape_property('canon ' + f.rule)}"
        lines.append(f"::{_GITHUB_LEVEL.get(f.severity, f.severity)} {props}::{_escape_data(f.message)}\n")
    return "".join(lines)


def _rule_name(rule_id: str) -> str:
    import re

    return "".join(part.capitalize() for part in re.split(r"[-_]", rule_id))


def sarif_rules(rules: dict[str, RuleInfo] | None = None) -> list[dict[str, Any]]:
    return [
        {
            "id": info.id,
            "name": _rule_name(info.id),
            "shortDescription": {"text": info.summary},
            "fullDescription": {"text": f"{info.summary} {info.help}"},
            "help": {"text": info.help, "markdown": info.help},
            "defaultConfiguration": {"level": info.severity},
            "properties": {"tags": ["canon", "documentation"], "fixable": info.fixable},
        }
        for info in (RULES if rules is None else rules).values()
    ]


def render_sarif(
    report: LintReport,
    version: str = "",
    rules: dict[str, RuleInfo] | None = None,
    tool: str = "canon lint",
    text_fields: Callable[[str, str], dict[str, str]] | None = None,
) -> dict[str, Any]:
    """A SARIF 2.1.0 log: one run, rule metadata, results with repository-relative locations.
    `rules`/`tool`: another canon command's catalogue and name (`canon check`). `text_fields(name,
    text)`: how a message that may hold bytes that are not UTF-8 is written (`{name: readable,
    name_b64: exact}`; the extra field goes to the message's property bag)."""
    from pathlib import Path
    from urllib.parse import quote

    ids = list(RULES if rules is None else rules)
    base_uri = Path(report.base).resolve().as_uri().rstrip("/") + "/"
    results = []
    for f in report.findings:
        if f.path.startswith("../"):
            location: dict[str, Any] = {"uri": Path(os.path.normpath(os.path.join(report.base, f.path))).as_uri()}
        else:
            # Percent-encoded from the path's bytes: a name that is not UTF-8 stays exact.
            location = {"uri": quote(f.path.encode("utf-8", "surrogateescape")), "uriBaseId": "%SRCROOT%"}
        results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": ids.index(f.rule),
                "level": f.severity,
                "message": _message(f.message, text_fields),
                "locations": [{"physicalLocation": {"artifactLocation": location, "region": {"startLine": f.line}}}],
            }
        )
    driver: dict[str, Any] = {
        "name": "canon",
        "fullName": f"{tool} (pylon-kit)",
        "semanticVersion": version or "0.0.0",
        "rules": sarif_rules(rules),
    }
    if version:
        driver["version"] = version
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "automationDetails": {"id": tool.replace(" ", "-") + "/"},
                "originalUriBaseIds": {"%SRCROOT%": {"uri": base_uri}},
                "invocations": [{"executionSuccessful": True}],
                "results": results,
            }
        ],
    }


def _message(text: str, text_fields: Callable[[str, str], dict[str, str]] | None) -> dict[str, Any]:
    if text_fields is None:
        return {"text": text}
    fields = text_fields("text", text)
    message: dict[str, Any] = {"text": fields.pop("text")}
    if fields:
        message["properties"] = fields
    return message


def dumps(doc: dict[str, Any]) -> str:
    import json

    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
