"""Reading files and running every rule on them; `--fix` rewrites happen here, atomically."""

from __future__ import annotations

import os
from pathlib import Path

from pylon.canon.lint.committed import Committed
from pylon.canon.lint.context import LintContext
from pylon.canon.lint.findings import Finding, finding
from pylon.canon.lint.rules_article import article_rules
from pylon.canon.lint.rules_journal import entry_rules, list_journal, name_problem
from pylon.canon.lint.rules_tree import tree_rules
from pylon.canon.safeio import ARTICLE_MAX, read_regular
from pylon.canon.store import FOLDER, ArticleFile, Store
from pylon.errors import PylonError


def read_text(path: Path | str, rel: str) -> tuple[str | None, Finding | None]:
    """The file as UTF-8 text, or the `unreadable` finding that says why it is not."""
    try:
        # Never blocks (a FIFO named *.md), never reads past the size cap (a link to /dev/zero).
        data = read_regular(os.fspath(path), what="article")
    except PylonError as exc:
        reason = {
            "is-directory": "is a folder, not a regular file",
            "not-regular": "is a special file (FIFO, socket or device), not a regular file",
            "too-large": f"is over {ARTICLE_MAX // (1024 * 1024)} MiB",
        }
        return None, finding("unreadable", reason.get(exc.code, exc.message), rel)
    except IsADirectoryError:
        return None, finding("unreadable", "is a folder, not a file (articles are <address>.md files)", rel)
    except FileNotFoundError:
        return None, finding("unreadable", "is a link to a file that does not exist", rel)
    except OSError as exc:
        return None, finding("unreadable", f"cannot be read ({exc.strerror})", rel)
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, finding("unreadable", f"is not valid UTF-8 (byte {exc.start}); re-save it as UTF-8", rel, line)


def _rules(ctx: LintContext, store: Store, article: ArticleFile, text: str, rel: str) -> list[Finding]:
    doc, out = article_rules(ctx, store.mount, text, rel)
    return out + tree_rules(ctx, store, article.address, doc, rel)


def lint_article_file(
    ctx: LintContext, store: Store, article: ArticleFile, fix: bool
) -> tuple[list[Finding], list[str]]:
    """(findings, rules fixed) for one article file."""
    rel = ctx.rel(article.path)
    if article.kind == FOLDER:
        return [finding("unreadable", "is a folder, not a file (articles are <address>.md files)", rel)], []
    text, problem = read_text(article.path, rel)
    if text is None:
        return [problem] if problem else [], []  # a broken link is `unreadable`
    if os.path.islink(article.path):
        return [
            finding(
                "symlink",
                f"is a link to {os.readlink(article.path)}; canon never writes through a link, "
                "so replace it with the real file",
                rel,
            )
        ], []
    if "\0" in text:
        return [
            finding(
                "nul-byte",
                "contains a NUL byte; remove it (canon write refuses such text)",
                rel,
                text.count("\n", 0, text.index("\0")) + 1,
            )
        ], []
    findings = _rules(ctx, store, article, text, rel)
    if not fix or not any(f.fixable for f in findings):
        return findings, []
    from pylon.canon.lint.fix import fix_text
    from pylon.canon.safeio import StoreDir, store_parts

    outcome = fix_text(text, findings)
    if not outcome.changed:
        return findings, []
    parts = store_parts(store.canon_dir, article.path)
    try:
        # Through descriptors without following links: --fix never writes out of the store.
        with StoreDir(store.canon_dir, parts[:-1], create=False) as folder:
            folder.replace(parts[-1], outcome.text.encode("utf-8"))
    except PylonError as exc:
        return [*findings, finding("unreadable", f"was not fixed: {exc.message}", rel)], []
    return _rules(ctx, store, article, outcome.text, rel), outcome.fixed


def lint_journal(
    ctx: LintContext, store: Store, files: list[Path] | None, committed: Committed | None = None
) -> tuple[list[Finding], int]:
    """Findings for the journal (all of it when `files` is None) and how many entries were read."""
    folder = store.journal
    if files is None:
        if not folder.is_dir():
            return [], 0
        try:
            listing = [(folder / name, is_dir) for name, is_dir in list_journal(folder)]
        except OSError as exc:
            return [finding("unreadable", f"cannot be listed ({exc.strerror})", ctx.rel(folder))], 0
    else:
        listing = [(path, os.path.isdir(path)) for path in files]
    out: list[Finding] = []
    count = 0
    for path, is_dir in listing:
        rel = ctx.rel(path)
        if is_dir:
            out.append(finding("journal-name", "is a folder; journal entries are files directly in journal/", rel))
            continue
        count += 1
        if path.is_symlink():
            out.append(finding("symlink", f"is a link to {os.readlink(path)}; journal entries are files", rel))
            continue
        bad_name = name_problem(path.name)
        if bad_name:
            out.append(finding("journal-name", bad_name, rel))
            if not path.name.endswith(".md"):
                continue  # not an entry at all: don't read it
        text, problem = read_text(path, rel)
        if text is None:
            if problem:
                out.append(problem)
            continue
        out += entry_rules(ctx, path.name, text, rel)
    if committed is None:
        return out, count
    from pylon.canon.lint.committed import fold_committed

    return fold_committed(out, committed, folder, ctx.rel(folder)), count
