"""`canon mv OLD NEW`: move an article and every article below it to a new address, rewrite the
`[[links]]` that named them (labels and `#anchor`/`^block` parts kept), and journal the move.

The whole plan is made (and refused) before anything is written: a move onto an existing article,
or a child landing on one, writes nothing. Then, under the store's write lock, new files are
created, linking articles are rewritten in place (each an atomic replace through the store's
folder descriptors), the old files are removed, and one journal entry records it. Journal entries
are never rewritten, not even the links in them: they record what was true then.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from pylon.canon.address import Address, normalize_address, to_address
from pylon.canon.links import check_links, extract_links, link_address
from pylon.canon.store import Project, Store, walk_articles
from pylon.errors import NotFoundError, PylonError, UsageError


@dataclass
class LinkEdit:
    address: Address  # the article whose text changes
    count: int  # links rewritten in it
    examples: list[tuple[str, str]] = field(default_factory=list)  # (old target, new target), a few


@dataclass
class MoveResult:
    old: Address
    new: Address
    moved: list[tuple[str, str]] = field(default_factory=list)  # (old address, new address) per article
    links: list[LinkEdit] = field(default_factory=list)
    journal: str | None = None  # the entry's file name (None on --dry-run)
    skipped: str = ""  # --from-git: why this move was not made
    left_behind: list[str] = field(default_factory=list)  # non-article files left in the old folder


@dataclass
class MoveRequest:
    old: Address
    new: Address
    skipped: str = ""


def _exists_error(target: Address, source: Address) -> PylonError:
    return PylonError(
        "article-exists",
        f"An article already exists at {target}; moving {source} onto it would overwrite it. Nothing was moved.",
        f"Merge the two by hand (canon read {target}; canon read {source}), or move to a free address.",
    )


def plan_move(project: Project, old_arg: str, new_arg: str) -> MoveRequest:
    from pylon.canon.article_write import check_address

    old = to_address(old_arg, project)
    new = to_address(new_arg, project)
    check_address(new)
    if old.mount != new.mount:
        raise UsageError(
            "usage",
            f"{old} and {new} are in different stores; canon mv moves within one store.",
            "Write the article in the other store, then delete the old one.",
        )
    store = project.store_for(old.mount)
    if not old.path or not store.has_article(old.path):
        raise NotFoundError(
            "no-article",
            f"No article is at {old} (canon mv moves an article by its exact address).",
            "Run `canon resolve " + old_arg + "` to see which article governs it, or `canon map`.",
        )
    if old == new:
        raise UsageError("usage", f"{old} and {new} are the same address; nothing to move.", "canon mv OLD NEW")
    return MoveRequest(old, new)


def plan_from_git(project: Project, rev: str | None) -> list[MoveRequest]:
    """One request per article git's renames (REV, default HEAD, against the working tree) call
    for; a move already covered by its parent's move is dropped, conflicts come back as skipped."""
    from pylon.canon.git.check import renames_to_apply

    _, moves = renames_to_apply(project, rev)
    out: list[MoveRequest] = []
    applied = [m for m in moves if not m.conflict]
    for move in moves:
        if move.conflict or move.new is None:
            out.append(MoveRequest(move.old, move.old, move.conflict))
            continue
        covered = any(
            other is not move
            and move.old.path.startswith(other.old.path + "/")
            and other.new is not None
            and move.new.path == other.new.path + move.old.path[len(other.old.path) :]
            for other in applied
        )
        if not covered:
            out.append(MoveRequest(move.old, move.new))
    return out


def _under(path: str, prefix: str) -> str | None:
    """The part of `path` after `prefix` ('' for the prefix itself), None when not at or below it."""
    if path == prefix:
        return ""
    if path.startswith(prefix + "/"):
        return path[len(prefix) :]
    return None


def _address_span(target: str, mounts: list[str]) -> tuple[int, int]:
    """Where the address sits in a link target as written. Around it stays as written on a move:
    blanks, a mount prefix, `./` or `/`, a trailing slash, a `.md` suffix, an anchor, and the `\\`
    that escapes a table's `|` (`[[a\\|label]]`). The peeling mirrors `link_address`."""
    end = len(target.rstrip())
    if target[:end].endswith("\\"):
        end = len(target[: end - 1].rstrip())
    cut = min([i for i in (target.find("#", 0, end), target.find("^", 0, end)) if i >= 0], default=end)
    end = len(target[:cut].rstrip())
    start = len(target) - len(target.lstrip())
    head, colon, _ = target[start:end].partition(":")
    if colon and head in mounts:
        start += len(head) + 1
    while start < end and (target[start] in "/\\" or target.startswith(("./", ".\\"), start, end)):
        start += 1 if target[start] in "/\\" else 2
    if target.endswith(".md", start, end):
        end -= 3
    while end > start and target[end - 1] in "/\\":
        end -= 1
    return start, end


def rewrite_links(
    text: str,
    mount: str | None,
    articles: dict[str | None, set[str]],
    store_mount: str | None,
    mapping: dict[str, str],
    root: tuple[str, str],
) -> tuple[str, list[tuple[str, str]]]:
    """`text` with every live link to a moved article (in `store_mount`) aimed at its new address;
    `root` is the move itself (old, new), whose prefix a path-like link keeps its tail below."""
    links = extract_links(text)
    edits: list[tuple[int, int, str]] = []
    changed: list[tuple[str, str]] = []
    mounts = [m for m in articles if m is not None]
    for checked in check_links(links, mount, articles):
        address = checked.address
        if not checked.exists or address is None or address.mount != store_mount or address.path not in mapping:
            continue
        target = checked.link.target
        begin, end = _address_span(target, mounts)
        spelt = target[begin:end]
        if normalize_address(spelt) == spelt and _under(spelt, root[0]) is not None:
            new_path = root[1] + spelt[len(root[0]) :]  # what it wrote below the moved address stays
        else:  # an unusual spelling (`a//b`, `a/./b`, `a\\b`): written anew, canonically
            rest = _under(link_address(target, mount, mounts).path, root[0])
            # A path-like link (`[[src/old/a.py]]`) keeps what it wrote below the moved address.
            new_path = root[1] + rest if rest is not None else mapping[address.path]
        new_target = target[:begin] + new_path + target[end:]
        start = checked.link.target_start
        edits.append((start, start + len(checked.link.target), new_target))
        changed.append((checked.link.target.strip(), new_target.strip()))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text, changed


def _read(path: str) -> str:
    from pylon.canon.safeio import read_regular

    try:
        return read_regular(path, what="article").decode("utf-8")
    except UnicodeDecodeError:
        raise PylonError(
            "not-utf8",
            f"{path} is not valid UTF-8; canon mv rewrites only text.",
            "Re-save it as UTF-8, then run canon mv again.",
        ) from None


def apply(project: Project, request: MoveRequest, dry_run: bool = False) -> MoveResult:
    result = MoveResult(request.old, request.new, skipped=request.skipped)
    if request.skipped:
        return result
    store = project.store_for(request.old.mount)
    if dry_run:
        return _move(project, store, request, result, dry_run=True)
    from pylon.canon.init import refuse_links
    from pylon.locks import file_lock

    refuse_links(store)
    store.cache.mkdir(exist_ok=True)
    with file_lock(store.cache / "write.lock", timeout=60, what=f"writes to {store.canon}"):
        return _move(project, store, request, result, dry_run=False)


def _move(project: Project, store: Store, request: MoveRequest, result: MoveResult, dry_run: bool) -> MoveResult:
    old, new = request.old, request.new
    sources = [a for a in walk_articles(store, old.path) if a.is_article]
    if not any(a.address == old.path for a in sources):
        raise NotFoundError("no-article", f"No article is at {old}.", "canon map")
    mapping = {a.address: new.path + a.address[len(old.path) :] for a in sources}
    existing = {a.address for a in walk_articles(store) if a.is_article}
    for source, target in mapping.items():
        if target in existing and target not in mapping:
            raise _exists_error(Address(store.mount, target), Address(store.mount, source))
    from pylon.canon.safeio import check_name_lengths

    for target in mapping.values():
        check_name_lengths(target.split("/"))
    result.moved = sorted(mapping.items())
    # Every article of the store (and of the project when moving in a mount) may link to the moved ones.
    articles: dict[str | None, set[str]] = {None: {a.address for a in walk_articles(project.store) if a.is_article}}
    for name, mount_store in project.mounts.items():
        articles[name] = {a.address for a in walk_articles(mount_store) if a.is_article}
    readers = [(store, a.address, a.path) for a in walk_articles(store) if a.is_article]
    if store.mount is not None:
        readers += [(project.store, a.address, a.path) for a in walk_articles(project.store) if a.is_article]
    new_texts: dict[tuple[str | None, str], str] = {}
    for reader_store, address, path in readers:
        text = _read(path)
        rewritten, changed = rewrite_links(
            text, reader_store.mount, articles, store.mount, mapping, (old.path, new.path)
        )
        key = (reader_store.mount, mapping.get(address, address) if reader_store is store else address)
        if changed:
            result.links.append(LinkEdit(Address(*key), len(changed), changed[:3]))
        if changed or (reader_store is store and address in mapping):
            new_texts[key] = rewritten
    left = os.path.join(store.articles_dir, *old.path.split("/"))
    if os.path.isdir(left):
        result.left_behind = sorted(
            os.path.relpath(os.path.join(folder, name), store.articles_dir).replace(os.sep, "/")
            for folder, _, names in os.walk(left)
            for name in names
            if not name.endswith(".md")
        )
    if dry_run:
        return result
    _write_all(project, store, new_texts, [s for s in mapping if s not in mapping.values()])
    result.journal = _journal(project, result)
    return result


def _write_all(project: Project, store: Store, texts: dict[tuple[str | None, str], str], removed: list[str]) -> None:
    from pylon.canon.safeio import StoreDir

    # New and rewritten files first, removals last: a failure half-way leaves a copy, never a loss.
    for (mount, address), text in sorted(texts.items(), key=lambda kv: (kv[0][0] or "", kv[0][1])):
        target_store = project.store_for(mount)
        parts = ["articles", *address.split("/")]
        parts[-1] += ".md"
        with StoreDir(target_store.canon_dir, parts[:-1]) as folder:
            folder.replace(parts[-1], text.encode("utf-8"))
    for address in sorted(removed, key=lambda a: -a.count("/")):
        parts = ["articles", *address.split("/")]
        with StoreDir(store.canon_dir, parts[:-1], create=False) as folder:
            folder.existing(parts[-1] + ".md")  # refuses a link planted since the plan
            os.unlink(parts[-1] + ".md", dir_fd=folder.fd)
        _prune_empty(store, parts[1:-1])


def _prune_empty(store: Store, segments: list[str]) -> None:
    """Remove the address folders a move emptied (never articles/ itself)."""
    while segments:
        try:
            os.rmdir(os.path.join(store.articles_dir, *segments))
        except OSError:
            return
        segments = segments[:-1]


def _journal(project: Project, result: MoveResult) -> str:
    from pylon.canon.journal import journal

    count = len(result.moved)
    moved = "; ".join(f"{a} -> {b}" for a, b in result.moved[:20]) + ("; ..." if count > 20 else "")
    links = sum(edit.count for edit in result.links)
    text = (
        f"Moved the article {result.old} to {result.new} with canon mv ({count} article"
        f"{'s' * (count != 1)}: {moved}). Rewrote {links} link{'s' * (links != 1)} in "
        f"{len(result.links)} article{'s' * (len(result.links) != 1)}; journal entries keep the old address."
    )
    return journal(project, text, subjects=[str(result.new)], slug="moved").name
