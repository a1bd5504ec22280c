"""What canon says beside an article it reads or writes: the standing problems `canon read` notes
(orphan, schema), and the advice after a write (lint findings, lost constraints, growth). Apart
from article.py so reading and writing an article do not load what only the messages need."""

from __future__ import annotations

import os

from pylon.canon.address import dotted_folders, mapped_names, move_hint
from pylon.canon.article import ArticleView, shell_quoted
from pylon.canon.article_write import WriteResult
from pylon.canon.store import Project

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.canon.advice import Advice


def after_write(project: Project, result: WriteResult) -> list[Advice]:
    """Advice for a write that changed the article: its lint findings, lost constraints, growth.
    Separate from write_article so a caller can report the write before lint runs."""
    from pylon.canon.advice import Advice, dropped_constraints, growth
    from pylon.canon.lint import lint_article
    from pylon.canon.schema import load_schema

    out = [Advice("schema", p.message) for p in load_schema(project.store_for(result.address.mount)).problems]
    out += [Advice(f.rule, f.message, f.severity, f.line) for f in lint_article(project, result.address)]
    if result.old_doc is not None and result.doc is not None:
        for item in (
            dropped_constraints(result.old_doc.body, result.doc.body),
            growth(result.old_doc.body, result.doc.body),
        ):
            if item is not None:
                out.append(item)
    return out


def standing_notes(project: Project, view: ArticleView) -> list[str]:
    """Standing problems `canon read` mentions: the article is an orphan, or breaks schema.json.

    The same rules as `canon lint` (orphan, schema), checked for this one article with one folder
    listing and one small JSON read, so a read stays cheap; `canon lint` gives the full report.
    """
    notes: list[str] = []
    store = project.store_for(view.address.mount)
    head, _, last = view.address.path.rpartition("/")
    if head and head.split("/", 1)[0] != ".canon" and view.doc.owned.get("scope", "").strip() != "rule":
        names = mapped_names(os.path.join(store.root_dir, head))
        folders = dotted_folders(store.root_dir, view.address.path) if names is not None and last not in names else []
        if folders:
            notes.append(move_hint(str(view.address), folders))
        elif names is not None and last not in names:
            notes.append(
                f"orphan: nothing in {head}/ maps to {last!r}; move the article with its asset, "
                f"delete it, or mark it scope: rule (canon write {shell_quoted(view.address)} --scope rule)"
            )
    if os.path.lexists(store.schema_file):
        from pylon.canon.schema import load_schema
        from pylon.canon.schema_check import check_article

        schema = load_schema(store, use_cache=True)
        notes += [f"schema: {p.message}" for p in schema.problems]  # a broken contract is said, not hidden
        notes += [f"schema: {v.message}" for v in check_article(schema, view.doc)]
    return notes
