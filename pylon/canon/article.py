"""One article: read the governing article of an address (`canon read`), and the messages reading
and writing share. article_write.py writes; this module stays on `canon read`'s short path.
"""

from __future__ import annotations

import os

from pylon.canon.address import (
    Address,
    Resolution,
    resolve,
    to_address,
)
from pylon.canon.frontmatter import Document, parse
from pylon.canon.store import Project, as_path
from pylon.errors import PylonError

TYPE_CHECKING = False  # typing costs start-up time on every `canon read`
if TYPE_CHECKING:
    from pathlib import Path


class ArticleView:
    """What `canon read` shows: the governing article and what it knows about the journal."""

    __slots__ = ("address", "requested", "file", "doc", "journal", "journal_total", "notes")

    def __init__(self, address: Address, requested: Address, file: str, doc: Document) -> None:
        self.address = address  # the governing article
        self.requested = requested
        self.file = file  # the article's file, a plain string (pathlib is not on the read path)
        self.doc = doc
        self.journal: list[str] = []
        self.journal_total = 0
        self.notes: list[str] = []

    @property
    def path(self) -> Path:
        return as_path(self.file)


def shell_quoted(text: object) -> str:
    """`text` quoted for a shell, as shlex.quote does; shlex (and the re it imports) is loaded
    only for the messages that need it, never on a plain `canon read`."""
    from shlex import quote

    return quote(str(text))


def write_hint(address: Address | str) -> str:
    return f'canon write {shell_quoted(address)} --capsule "..." --body "..."'


def load_text(path: str | Path, address: Address | str) -> str:
    """An article file's text: regular files only (a FIFO would hang the read), size-capped;
    refuses folders and invalid UTF-8 with their own codes."""
    from pylon.canon.safeio import read_regular

    return decode_article(read_regular(os.fspath(path), what="article"), path, address)


def decode_article(raw: bytes, path: str | Path, address: Address | str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PylonError(
            "not-utf8",
            f"The article {address} ({path}) is not valid UTF-8 (bad byte at offset {exc.start}).",
            f"Re-save {path} as UTF-8, then run the command again.",
        ) from None


def is_directory(path: str | Path) -> PylonError:
    return PylonError(
        "is-directory",
        f"{path} is a folder where an article file belongs.",
        f"Move {path} out of the way (articles are <address>.md files; child articles live in <address>/).",
    )


def _check_folders(resolution: Resolution, project: Project) -> None:
    """A folder named like an article file (`x.md/`) is an error, not a silent skip."""
    store = project.store_for(resolution.requested.mount)
    for tried in resolution.tried:
        candidate = store.article_file(tried.path)
        if tried == resolution.governing:
            return
        if os.path.isdir(candidate):
            raise is_directory(candidate)


def read_article(project: Project, arg: str, *, journal_limit: int = 3) -> ArticleView:
    """The article governing `arg` (an address or a path), with its newest journal entries."""
    requested = to_address(arg, project)
    resolution = resolve(requested, project)
    _check_folders(resolution, project)
    if resolution.governing is None:
        store = project.store_for(requested.mount)
        where = "" if store.exists() else f" (there is no store at {store.canon_dir})"
        if not requested.path:
            raise PylonError(
                "no-article",
                f"The empty address (the project root) governs nothing{where}.",
                "Name an asset or address: canon read src/app.py  (canon map lists every article)",
            )
        raise PylonError(
            "no-article",
            f"No article governs {requested}{where}.",
            write_hint(requested),
            details={"requested": str(requested), "tried": [str(a) for a in resolution.tried]},
        )
    governing = resolution.governing
    file = project.store_for(governing.mount).article_file(governing.path)
    doc = parse(load_text(file, governing))
    view = ArticleView(governing, requested, file, doc)
    for problem in doc.problems:
        view.notes.append(f"front matter line {problem.line}: {problem.message} (canon lint {shell_quoted(governing)})")
    from pylon.canon import journal_index

    hits = journal_index.newest(project.store, str(governing), journal_limit)
    view.journal, view.journal_total = hits.names, hits.total
    return view


# ---- writing --------------------------------------------------------------------------------
