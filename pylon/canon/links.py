"""Wiki links between articles: `[[target]]`, `[[target|label]]`, `[[target#heading]]`.

Extraction skips fenced code blocks (``` or ~~~) and inline code spans, as Markdown renders them
as code. Each Link keeps its character offsets so `canon mv` can rewrite targets in place.

Resolution (see docs/explanation/canon.md): a link names an article by its exact address. `[[name:rest]]`
names the article `rest` in the mount `name`; an unprefixed link resolves in the store of the
article that holds it. A `.md` suffix, a `#heading` or `^block` anchor and surrounding spaces are
ignored. A link whose address only an ancestor article governs is dead: links are references to
articles, not to assets, and accepting ancestors would hide every typo below an existing article.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Container, Mapping
from dataclasses import dataclass

from pylon.canon.address import Address, drop_extension, normalize_address
from pylon.errors import PylonError

# Starts with a literal so the regex engine can skip ahead; a preceding `!` marks an embed.
_LINK = re.compile(r"\[\[([^\[\]\n|]*)(?:\|([^\[\]\n]*))?\]\]")
# Targets that are already canonical addresses (the common case) skip normalisation.
_SIMPLE_TARGET = re.compile(
    r"[A-Za-z0-9_-][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*(?:/[A-Za-z0-9_-][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*)*"
)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_BLANK = re.compile(r"\n[ \t]*\r?\n")
_MOUNT = re.compile(r"^([A-Za-z0-9._-]+):(.*)$")
# Embeds of attachments (`![[diagram.png]]`) are files, not articles.
_ATTACHMENT = re.compile(r"\.(?!md$)[A-Za-z0-9]{1,8}$")


@dataclass(slots=True)
class Link:
    target: str  # as written between [[ and | or ]], untrimmed
    label: str | None
    line: int  # 1-based, counted from `first_line`
    start: int  # offset of `[[` (or `![[`) in the text
    end: int  # offset just past `]]`
    embed: bool = False

    @property
    def target_start(self) -> int:
        """Offset of the target text, for rewriting it in place."""
        return self.start + (3 if self.embed else 2)


def code_mask(text: str) -> list[tuple[int, int]]:
    """Sorted (start, end) offsets of fenced code blocks and inline code spans in `text`."""
    spans: list[tuple[int, int]] = []
    pos = 0
    fence: str | None = None
    fence_start = 0
    prose_start = 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        match = _FENCE.match(stripped)
        if fence is None:
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                spans.extend(_inline_code(text, prose_start, pos))
                fence, fence_start = match.group(1), pos
        elif (
            match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) and not match.group(2).strip()
        ):
            spans.append((fence_start, pos + len(line)))
            fence = None
            prose_start = pos + len(line)
        pos += len(line)
    if fence is not None:
        spans.append((fence_start, len(text)))  # an unclosed fence runs to the end, as in CommonMark
    else:
        spans.extend(_inline_code(text, prose_start, len(text)))
    return spans


def _inline_code(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Code spans: a run of N backticks up to the next run of exactly N backticks."""
    spans: list[tuple[int, int]] = []
    i = text.find("`", start, end)
    while 0 <= i < end:
        j = i
        while j < end and text[j] == "`":
            j += 1
        run = j - i
        k = j
        close = -1
        # A code span never crosses a blank line (the end of a paragraph).
        blank = _BLANK.search(text, j, end)
        limit = blank.start() if blank else end
        while True:
            k = text.find("`" * run, k, limit)
            if k < 0:
                break
            after = k + run
            if text[k - 1] != "`" and (after >= end or text[after] != "`"):
                close = k
                break
            while k < limit and text[k] == "`":
                k += 1
        if close < 0:
            i = text.find("`", j, end)  # an unmatched run is literal text
            continue
        spans.append((i, close + run))
        i = text.find("`", close + run, end)
    return spans


def extract_links(text: str, first_line: int = 1) -> list[Link]:
    """Every wiki link outside code, in order. `first_line` is the file line of `text`'s first line."""
    if "[[" not in text:
        return []
    mask = code_mask(text) if "`" in text or "~~~" in text else []
    links: list[Link] = []
    m_index = 0
    line = first_line
    counted_to = 0
    for match in _LINK.finditer(text):
        start = match.start()
        while m_index < len(mask) and mask[m_index][1] <= start:
            m_index += 1
        if m_index < len(mask) and mask[m_index][0] <= start < mask[m_index][1]:
            continue
        line += text.count("\n", counted_to, start)
        counted_to = start
        target, label = match.group(1), match.group(2)
        embed = start > 0 and text[start - 1] == "!"
        if embed:
            start -= 1
        if not target.strip() or target.strip().startswith(("#", "^")):
            continue  # [[]] or a link to a heading of this same article
        if embed and _ATTACHMENT.search(target.strip()):
            continue
        links.append(Link(target, label, line, start, match.end(), embed))
    return links


def is_canonical_target(address: str) -> bool:
    """A link target written exactly so names `address` without any normalisation."""
    return bool(_SIMPLE_TARGET.fullmatch(address)) and not address.endswith(".md")


def all_live(text: str, known: Container[str], canonical: bool = False) -> set[str] | None:
    """The distinct link targets of `text` when it has no code and every link is a canonical
    address in `known`; None when any link needs the full treatment (`extract_links`).

    A fast path for lint: most articles link only to existing articles by exact address.
    `canonical=True` promises every member of `known` passes `is_canonical_target`."""
    if "`" in text or "~~~" in text:
        return None
    targets = {target for target, _ in _LINK.findall(text)}
    for target in targets:
        if target not in known or not (canonical or is_canonical_target(target)):
            return None
    return targets


def link_address(target: str, mount: str | None, mounts: Collection[str] = ()) -> Address:
    """The address a link target names, from an article in `mount` (None: the project store).

    Raises PylonError (`path-outside`) for a target that climbs above the root with `..`.
    """
    if _SIMPLE_TARGET.fullmatch(target) and not target.endswith(".md"):
        return Address(mount, target)
    text = target.strip().replace("\\", "/")
    for sep in ("#", "^"):
        cut = text.find(sep)
        if cut >= 0:
            text = text[:cut].rstrip()
    if text.endswith(".md"):
        text = text[:-3]
    match = _MOUNT.match(text)
    if match and match.group(1) in mounts:
        return Address(match.group(1), normalize_address(match.group(2)))
    return Address(mount, normalize_address(text))


def _as_path(address: Address, known: Container[str]) -> Address | None:
    """A target that looks like a file (`[[src/app.ts]]`) resolves as pi-canon resolves it, the
    way a path does: one extension dropped, then the nearest existing article governs."""
    head, slash, last = address.path.rpartition("/")
    dropped = drop_extension(last)
    if dropped == last:
        return None  # not a file name: an exact address was meant, and it is dead
    for candidate in Address(address.mount, head + slash + dropped).ancestors():
        if candidate.path in known:
            return candidate
    return None


@dataclass
class LinkCheck:
    link: Link
    address: Address | None  # None when the target is malformed
    exists: bool
    reason: str = ""  # why a dead link is dead, for the message


def dead_links(links: list[Link], mount: str | None, articles: Mapping[str | None, Container[str]]) -> list[LinkCheck]:
    """Only the links that name no article (the fast path for lint: live links cost a set lookup)."""
    known = articles.get(mount, ())
    suspects = [
        link
        for link in links
        if not (_SIMPLE_TARGET.fullmatch(link.target) and not link.target.endswith(".md") and link.target in known)
    ]
    return [check for check in check_links(suspects, mount, articles) if not check.exists]


def check_links(links: list[Link], mount: str | None, articles: Mapping[str | None, Container[str]]) -> list[LinkCheck]:
    """Resolve each link against `articles` (mount name or None -> set of in-store addresses)."""
    out: list[LinkCheck] = []
    mount_names = [m for m in articles if m is not None]
    for link in links:
        try:
            address = link_address(link.target, mount, mount_names)
        except PylonError:
            out.append(LinkCheck(link, None, False, "climbs above the store root with '..'"))
            continue
        known = articles.get(address.mount, ())
        if address.path and address.path in known:
            out.append(LinkCheck(link, address, True))
            continue
        governing = _as_path(address, known)
        if governing is not None:
            out.append(LinkCheck(link, governing, True))
            continue
        reason = "names no article"
        if _MOUNT.match(address.path):
            reason = f"names no article and no mount called {address.path.split(':', 1)[0]!r}"
        else:
            for ancestor in address.ancestors()[1:]:
                if ancestor.path in known:
                    reason = f"names no article ({ancestor} governs it; link [[{ancestor}]] instead)"
                    break
        out.append(LinkCheck(link, address, False, reason))
    return out
