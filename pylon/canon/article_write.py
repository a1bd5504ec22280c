"""Writing one article (create or update: `canon write`).

Writes never re-serialise YAML: the file's front matter is kept as raw lines and only the owned
keys are set (pylon.canon.frontmatter). A write that changes nothing leaves the file byte-identical.
Apart from article.py so that `canon read` never loads the write path.
"""

from __future__ import annotations

import os
from datetime import UTC

from pylon.canon.address import Address, stored_address, to_address
from pylon.canon.article import decode_article, is_directory, shell_quoted, write_hint
from pylon.canon.frontmatter import Document, fold_capsule, parse
from pylon.canon.pasted import find_pasted
from pylon.canon.store import Project, Store
from pylon.canon.text import check_text, has_control
from pylon.errors import PylonError, UsageError

TYPE_CHECKING = False  # typing costs start-up time
if TYPE_CHECKING:
    from pathlib import Path

SCOPES = ("rule", "asset")


class WriteResult:
    """What `canon write` did to one article."""

    __slots__ = (
        "address",
        "path",
        "created",
        "changed",
        "updated",
        "stripped_front_matter",
        "doc",
        "old_doc",
        "created_store",
    )

    def __init__(
        self,
        address: Address,
        path: Path,
        created: bool,
        changed: bool,
        updated: str | None,
        stripped_front_matter: bool = False,
        doc: Document | None = None,
        old_doc: Document | None = None,
    ) -> None:
        self.address = address
        self.path = path
        self.created = created
        self.changed = changed
        self.updated = updated
        self.stripped_front_matter = stripped_front_matter
        self.doc = doc
        self.old_doc = old_doc
        # Store files and folders this write created (relative to the project root, as `canon init`
        # prints them); empty when the store was already complete.
        self.created_store: list[str] = []


def strip_pasted_front_matter(body: str) -> tuple[str, bool]:
    """Remove a leading `---` block whose every line is `key: value` or blank."""
    pasted = find_pasted(body)
    return (body, False) if pasted is None else (body[pasted.end :], True)


def normalize_body(body: str, newline: str) -> str:
    """Blank lines at both ends dropped, one final newline, the file's own line endings."""
    text = body.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    lines = [ln.rstrip(" \t") if not ln.strip() else ln for ln in lines]
    return newline.join(lines) + newline if lines else ""


def today() -> str:
    """Today's UTC calendar date (`updated` is a UTC date, like journal file names)."""
    from datetime import datetime

    return datetime.now(UTC).strftime("%Y-%m-%d")


def check_address(address: Address) -> None:
    if not address.path:
        raise UsageError(
            "bad-address",
            "The empty address (the project root) cannot hold an article.",
            write_hint("src/app"),
        )
    if has_control(str(address)):
        raise UsageError(
            "bad-address",
            f"The address {str(address)!r} holds a line break or another control character, which no file name "
            "should carry.",
            write_hint("src/app"),
        )
    segments = address.path.split("/")
    if segments[0] == ".canon" or any(seg in (".", "..") for seg in segments):
        raise UsageError(
            "bad-address",
            f"{address} is inside the store itself; articles describe assets, not .canon/.",
            write_hint("src/app"),
        )


def write_article(
    project: Project,
    arg: str,
    *,
    capsule: str | None = None,
    body: str | None = None,
    scope: str | None = None,
) -> WriteResult:
    """Create or update the article at `arg`'s address. Blank fields are left as they were."""
    if scope not in (None, "", *SCOPES):
        raise UsageError(
            "bad-scope", f"--scope takes rule or asset, not {scope!r}.", "canon write ADDRESS --scope rule"
        )
    check_text(capsule, "--capsule")
    check_text(body, "--body")
    address = to_address(arg, project)
    check_address(address)
    from pylon.canon.safeio import check_name_lengths

    store = project.store_for(address.mount)
    address = stored_address(address, store)  # a dotted folder pi-canon stored under a shorter name
    check_name_lengths(address.path.split("/"), base=store.articles_dir)
    path = store.article_path(address.path)
    new_capsule = fold_capsule(capsule) if capsule and capsule.strip() else None
    stripped = False
    if body is not None and body.strip():
        body, stripped = strip_pasted_front_matter(body)
    new_body = body if body is not None and body.strip() else None

    if os.path.isdir(path):
        raise is_directory(path)
    # Read-modify-write under the store's write lock: two writers of one article never lose
    # each other's fields (the second one starts from what the first wrote).
    from pylon.canon.init import check_folders
    from pylon.locks import file_lock

    check_folders(store.canon, store.articles, store.journal, path.parent)
    made: list[Path] = []
    if not store.canon.is_dir():
        # No store yet: a refused write must leave no trace, so there is no lock file to take.
        try:
            return _write(project, store, address, path, new_capsule, new_body, scope, stripped, locked=False)
        except _MadeMeanwhile as taken:  # another first writer created this article: update it
            made = taken.made
    # Generous timeout: a holder only parses, checks and fsyncs one file, but fsync can crawl on
    # a busy disk, and failing an agent's write for a slow disk helps nobody.
    from pylon.canon.init import refuse_links

    refuse_links(store)  # before the lock file goes into .cache/
    with file_lock(store.cache / "write.lock", timeout=60, what=f"writes to {store.canon}"):
        try:
            result = _write(project, store, address, path, new_capsule, new_body, scope, stripped, locked=True)
        except _MadeMeanwhile as taken:  # made by a first writer without the lock: now it exists
            made = made or taken.made
            result = _write(project, store, address, path, new_capsule, new_body, scope, stripped, locked=True)
    if made:  # this call made the store before it found the article taken: it still says so
        from pylon.canon.init import relative_paths

        result.created_store = relative_paths(made, project.root)
    return result


class _MadeMeanwhile(Exception):
    """A creation found its article made meanwhile by a first writer that runs without the lock."""

    def __init__(self, made: list[Path]) -> None:
        super().__init__("article created meanwhile")
        self.made = made  # the store's paths this call created (kept: the other writer uses them)


def _read_old(store: Store, parts: list[str], address: Address, path: Path) -> str | None:
    """The article's current text, read through directory descriptors (no link followed)."""
    from pylon.canon.safeio import StoreDir

    try:
        with StoreDir(store.canon_dir, parts[:-1], create=False) as folder:
            raw = folder.read(parts[-1])
    except FileNotFoundError:
        return None
    return None if raw is None else decode_article(raw, path, address)


def _write(
    project: Project,
    store: Store,
    address: Address,
    path: Path,
    new_capsule: str | None,
    new_body: str | None,
    scope: str | None,
    stripped: bool,
    locked: bool,
) -> WriteResult:
    from pylon.canon.init import ensure_store, relative_paths, remove_created
    from pylon.canon.safeio import StoreDir, check_size, store_parts

    parts = store_parts(store.canon_dir, os.fspath(path))
    old_text = _read_old(store, parts, address, path) if store.exists() else None
    if old_text is None:
        if new_body is None:
            raise PylonError(
                "empty-body",
                f"{address} has no article yet, and a new article needs a body.",
                write_hint(address),
            )
        old_doc = None
        doc = Document()
    else:
        old_doc = parse(old_text)
        _refuse_invalid(old_doc, path, address)
        doc = parse(old_text)
    if new_capsule is not None and doc.owned.get("capsule") != new_capsule:
        doc.set("capsule", new_capsule)
    if scope == "rule" and doc.owned.get("scope") != "rule":
        doc.set("scope", "rule")
    elif scope == "asset" and "scope" in doc.owned:
        doc.set("scope", None)
    if new_body is not None:
        fresh = normalize_body(new_body, doc.newline)
        if normalize_body(doc.body, doc.newline) != fresh:
            doc.body = fresh
    changed = old_text is None or doc.render() != old_text
    result = WriteResult(address, path, old_text is None, changed, doc.owned.get("updated"), stripped, doc, old_doc)
    if not changed:
        return result
    doc.set("updated", today())
    result.updated = doc.owned["updated"]
    _check_schema(store, old_doc, doc, address)
    data = doc.render().encode("utf-8")
    check_size(data, f"The article {address}")  # what `canon read` would refuse is never written
    made = ensure_store(store)
    taken = False
    try:
        with StoreDir(store.canon_dir, parts[:-1]) as folder:
            try:
                if locked:
                    folder.remove_stale_temps(parts[-1])
                if old_text is not None:
                    folder.replace(parts[-1], data)
                else:  # a first writer without the lock may create it meanwhile: never over it
                    taken = not folder.create(parts[-1], data)
            except BaseException:
                folder.rollback()
                raise
    except BaseException:
        remove_created(made)  # a failed write leaves no trace of the store it began
        raise
    if taken:
        raise _MadeMeanwhile(made)
    result.created_store = relative_paths(made, project.root)
    return result


def _refuse_invalid(doc: Document, path: Path, address: Address) -> None:
    from pylon.canon.frontmatter import yaml_problems

    problems = doc.problems or [p for p in yaml_problems(doc) if not _healable(doc, p.line)]
    if problems:
        first = problems[0]
        raise PylonError(
            "front-matter-invalid",
            f"{path}:{first.line}: {first.message}; the write was refused and nothing changed.",
            f"Fix the front matter of {path} by hand (canon lint {shell_quoted(address)} shows every problem).",
            details={"problems": [{"line": p.line, "message": p.message} for p in problems]},
        )


def _healable(doc: Document, line: int) -> bool:
    """The YAML problem at `line` is an owned value written plain that quoting fixes (pi-canon
    writes `capsule: - item`): canon reads the text shown, and a write of that field heals it."""
    from pylon.canon.frontmatter import needs_quotes

    return any(
        start <= line - 2 < end and needs_quotes(doc.owned.get(key, "")) for key, (start, end) in doc.spans.items()
    )


def _check_schema(store: Store, old_doc: Document | None, doc: Document, address: Address) -> None:
    try:
        from pylon.canon.schema import load_schema
        from pylon.canon.schema_check import required_violations
    except ImportError:  # the schema module is optional at this layer
        return
    violations = required_violations(load_schema(store), old_doc, doc)
    if violations:
        raise PylonError(
            "schema-required",
            f"The write to {address} breaks schema.json: " + "; ".join(violations) + ". Nothing was written.",
            f"Supply the required fields: {write_hint(address)}  (rules in {store.schema_path})",
            details={"violations": violations},
        )
