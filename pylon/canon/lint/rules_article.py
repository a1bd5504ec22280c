"""Rules that look at one article file: front matter, capsule, body size, links, schema."""

from __future__ import annotations

import re

from pylon.canon.address import Address, dotted_governing, drop_extension
from pylon.canon.frontmatter import _YAML_TYPED, Document, needs_quotes, parse
from pylon.canon.links import Link, all_live, dead_links, extract_links
from pylon.canon.lint.context import LintContext
from pylon.canon.lint.findings import WARNING, Finding, finding
from pylon.canon.lint.yamlcheck import front_matter_yaml_problems
from pylon.canon.pasted import find_pasted
from pylon.canon.schema_check import check_article as schema_check
from pylon.canon.schema_check import distinct_refs

CAPSULE_MAX = 1000
BODY_LONG = 8000
BODY_LARGE = 20000

_CHANGELOG = re.compile(
    r"""^\W*(?:
        (?:added|updated|fixed|changed|removed|deleted|renamed|moved|refactored|bumped|reverted|migrated
          |deprecated|replaced|switched|introduced|implemented|rewrote|rewritten|improved|tweaked|cleaned)\b
      | (?:add|adds|update|updates|fix|fixes|change|changes|remove|removes|feat|chore|docs|refactor|perf)
          (?:\([^)]*\))?!?\s*:
      | \d{4}-\d{2}-\d{2}\b
    )""",
    re.IGNORECASE | re.VERBOSE,
)


def owned_line(doc: Document, key: str) -> int:
    span = doc.spans.get(key)
    return 2 + span[0] if span else 1


def _plain_single(doc: Document, key: str) -> bool:
    """The owned value is written plain on one line (not quoted, not a block scalar)."""
    start, end = doc.spans[key]
    if end - start != 1:
        return False
    raw = doc.fm_lines[start].split(":", 1)[1].strip()
    return bool(raw) and raw[0] not in "\"'>|"


def _typed(key: str, value: str) -> str | None:
    """What YAML would read a plain owned value as, when not a string (`updated` may be a date)."""
    if not _YAML_TYPED.match(value):
        return None
    if re.match(r"^[0-9]{4}-", value):
        return None if key == "updated" else "a date"
    low = value.lower()
    if low in ("~", "null"):
        return "null"
    if low in ("y", "n", "yes", "no", "true", "false", "on", "off"):
        return "a boolean"
    return "a number"


def front_matter_rules(doc: Document, rel: str) -> list[Finding]:
    out = [finding("front-matter-invalid", p.message, rel, p.line, fixable=False) for p in doc.problems]
    if doc.problems:
        return out
    plain = [key for key in doc.spans if _plain_single(doc, key)]
    for problem in front_matter_yaml_problems(doc):
        # Quoting an owned value fixes YAML that breaks on that value (`capsule: a: b`).
        fixable = any(
            doc.spans[key][0] <= problem.line - 2 < doc.spans[key][1] and needs_quotes(doc.owned[key]) for key in plain
        )
        # An owned value written unquoted (as pi-canon writes `capsule: - item`) is not an error the
        # user caused: it reads as the text it shows, and --fix quotes it.
        out.append(
            finding(
                "unquoted-value" if fixable else "front-matter-invalid",
                problem.message,
                rel,
                problem.line,
                fixable=fixable,
            )
        )
    for key in plain:
        kind = _typed(key, doc.owned[key])
        if kind:
            out.append(
                finding(
                    "unquoted-value",
                    f"{key} value {doc.owned[key]!r} is read by YAML as {kind}, not text; quote it",
                    rel,
                    owned_line(doc, key),
                    fixable=True,
                )
            )
    return out


def capsule_rules(doc: Document, rel: str) -> list[Finding]:
    capsule = doc.owned.get("capsule", "").strip()
    line = owned_line(doc, "capsule")
    if not capsule:
        return [finding("no-capsule", "no capsule: add one dense line stating what this asset is", rel, line)]
    out: list[Finding] = []
    start, end = doc.spans["capsule"]
    if end - start > 1 or "\n" in capsule:
        lines = max(end - start, capsule.count("\n") + 1)
        out.append(finding("capsule-multiline", f"capsule spans {lines} lines; a capsule is one line", rel, line))
    if len(capsule) > CAPSULE_MAX:
        out.append(
            finding("capsule-too-long", f"capsule has {len(capsule)} characters (over {CAPSULE_MAX})", rel, line)
        )
    if _CHANGELOG.match(capsule):
        word = capsule.split()[0]
        out.append(
            finding(
                "capsule-changelog", f"capsule starts like a change log ({word!r}); state the current truth", rel, line
            )
        )
    return out


def body_rules(doc: Document, rel: str) -> list[Finding]:
    out: list[Finding] = []
    size = len(doc.body.strip())
    if size > BODY_LARGE:
        out.append(
            finding(
                "body-large",
                f"body has {size} characters (over {BODY_LARGE}): split it into child articles",
                rel,
                doc.body_line,
            )
        )
    elif size > BODY_LONG:
        out.append(finding("body-long", f"body has {size} characters (over {BODY_LONG})", rel, doc.body_line))
    pasted = find_pasted(doc.body) if doc.body.lstrip().startswith("---") else None
    if pasted is not None:
        out.append(
            finding(
                "pasted-front-matter",
                f"the body starts with a pasted front-matter block ({len(pasted.lines)} key line(s))",
                rel,
                doc.body_line + pasted.line,
            )
        )
    return out


def link_rules(ctx: LintContext, mount: str | None, links: list[Link], rel: str) -> list[Finding]:
    if not links:
        return []
    return [
        finding("dead-link", f"[[{check.link.target.strip()}]] {check.reason}", rel, check.link.line)
        for check in dead_links(links, mount, ctx.articles)
        if not _dotted(ctx, check.address)
    ]


def _dotted(ctx: LintContext, address: Address | None) -> bool:
    """A file link (`[[src/my.pkg/mod.py]]`) into a dotted folder whose article pi-canon stored
    under the shorter name (`src/my`) is live, as the path resolves there."""
    if address is None or drop_extension(address.path.rpartition("/")[2]) == address.path.rpartition("/")[2]:
        return False  # no extension: an exact address was meant
    root = ctx.project.store_for(address.mount).root_dir
    return dotted_governing(root, address.path, lambda path: ctx.has_article(address.mount, path)) is not None


def schema_rules(ctx: LintContext, mount: str | None, doc: Document, refs: int, rel: str) -> list[Finding]:
    schema = ctx.schema(mount)
    if schema.empty:
        return []
    return [
        finding("schema", v.message, rel, v.line, severity=None if v.required else WARNING)
        for v in schema_check(schema, doc, refs)
    ]


def article_rules(ctx: LintContext, mount: str | None, text: str, rel: str) -> tuple[Document, list[Finding]]:
    """All single-file rules for one article's text."""
    doc = parse(text)
    out = front_matter_rules(doc, rel)
    out += capsule_rules(doc, rel)
    out += body_rules(doc, rel)
    if "[[" not in doc.body:
        live: set[str] | None = set()
    elif mount in ctx.canonical:
        live = all_live(doc.body, ctx.canonical[mount], canonical=True)
    else:
        live = all_live(doc.body, ctx.articles.get(mount, ()))
    if live is not None:
        refs = distinct_refs(live)
    else:
        links = extract_links(doc.body, doc.body_line)
        out += link_rules(ctx, mount, links, rel)
        refs = distinct_refs(link.target for link in links)
    capsule = ctx.schema(mount).fields.get("capsule")
    if capsule is not None and capsule.max_chars is not None:
        # The schema's own capsule bound speaks for the length (pi-canon gives its fixed cap only
        # when the schema declares none): one warning, not two.
        out = [f for f in out if f.rule != "capsule-too-long"]
    out += schema_rules(ctx, mount, doc, refs, rel)
    return doc, out
