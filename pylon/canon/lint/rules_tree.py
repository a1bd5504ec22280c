"""Rules about where an article sits: tiny-child, orphan, address-eventish."""

from __future__ import annotations

import re

from pylon.canon.address import dotted_folders, move_hint
from pylon.canon.frontmatter import Document
from pylon.canon.lint.context import LintContext
from pylon.canon.lint.findings import Finding, finding
from pylon.canon.store import Store

TINY_CHILD = 400
_EVENT_WORDS = frozenset(
    "log logs journal journals session sessions meeting meetings standup standups diary changelog".split()
)
_WORD_SPLIT = re.compile(r"[-_. ]+")
_DATE = re.compile(
    r"(?<![0-9])(?:(?:19|20)[0-9]{2}-[01][0-9](?:-[0-3][0-9])?|(?:19|20)[0-9]{2}[01][0-9][0-3][0-9])(?![0-9])"
)


def eventish_reason(address: str) -> str | None:
    """Why an address looks like an event rather than an asset (None when it does not)."""
    for segment in address.split("/"):
        words = [w.lower() for w in _WORD_SPLIT.split(segment) if w]
        hit = next((w for w in words if w in _EVENT_WORDS), None)
        if hit:
            return f"segment {segment!r} has the word {hit!r}"
        date = _DATE.search(segment)
        if date:
            return f"segment {segment!r} holds a date ({date.group(0)})"
    return None


def tree_rules(ctx: LintContext, store: Store, address: str, doc: Document, rel: str) -> list[Finding]:
    out: list[Finding] = []
    mount = store.mount
    head, _, last = address.rpartition("/")
    parent_exists_on_disk, maps = ctx.asset_exists(store, address)
    if head and ctx.has_article(mount, head):
        size = len(doc.body.strip())
        if size < TINY_CHILD:
            shown = f"{mount}:{head}" if mount else head
            out.append(
                finding(
                    "tiny-child",
                    f"body has {size} characters (under {TINY_CHILD}) and the parent "
                    f"article {shown} exists: fold it in",
                    rel,
                    doc.body_line,
                )
            )
    folders = [] if maps or not parent_exists_on_disk else dotted_folders(str(store.root), address)
    if folders:
        shown = f"{mount}:{address}" if mount else address
        out.append(
            finding("dotted-folder", move_hint(shown, [f"{mount}:{f}" if mount else f for f in folders]), rel, 1)
        )
    elif head and parent_exists_on_disk and not maps and doc.owned.get("scope", "").strip() != "rule":
        out.append(
            finding(
                "orphan",
                f"nothing in {head}/ maps to {last!r} (no {last}.* file or {last}/ folder): "
                "move the article with its asset, delete it, or mark it scope: rule",
                rel,
                1,
            )
        )
    if not maps:
        reason = eventish_reason(address)
        if reason:
            out.append(
                finding(
                    "address-eventish",
                    f"address {address} looks like an event: {reason}; "
                    "articles hold current truth, events go in the journal",
                    rel,
                    1,
                )
            )
    return out
