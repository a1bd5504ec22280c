"""`canon lint`: check the store against the rules of docs/reference/canon.md; optionally apply safe fixes.

`lint(project, targets, fix)` checks the whole project store (articles, journal, schema.json) or
the articles the targets select; `lint_article(project, address)` checks one article (advice for
`canon write`). Both return data; nothing here prints. Only `--fix` ever writes, atomically.
"""

from __future__ import annotations

import os

from pylon.canon.address import Address, resolve, to_address
from pylon.canon.lint.findings import ERROR, RULES, WARNING, Finding, finding
from pylon.canon.record import Record
from pylon.canon.store import ArticleFile, Project, Store, path_kind, walk_articles
from pylon.errors import PylonError, UsageError

# The lint machinery (context: links, schema, pathlib) loads when a lint runs: `canon check` and
# the renderers import this package for Finding and LintReport alone.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from pylon.canon.lint.committed import Committed
    from pylon.canon.lint.context import LintContext

__all__ = ["RULES", "Finding", "FixedFile", "LintReport", "lint", "lint_article"]

if TYPE_CHECKING:
    Progress = Callable[[int, int], None]  # (done, total)


class FixedFile(Record):
    __slots__ = ("path", "rules")

    def __init__(self, path: str, rules: list[str]) -> None:
        self.path = path
        self.rules = rules


class LintReport(Record):
    __slots__ = ("findings", "articles", "journal", "fixed", "base")

    def __init__(
        self,
        findings: list[Finding] | None = None,
        articles: int = 0,
        journal: int = 0,
        fixed: list[FixedFile] | None = None,
        base: str = "",
    ) -> None:
        self.findings: list[Finding] = [] if findings is None else findings
        self.articles = articles
        self.journal = journal
        self.fixed: list[FixedFile] = [] if fixed is None else fixed
        self.base = base  # absolute folder that finding paths are relative to

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def errors(self) -> int:
        return self.count(ERROR)

    @property
    def warnings(self) -> int:
        return self.count(WARNING)

    def failed(self, strict: bool = False) -> bool:
        return bool(self.errors or (strict and self.warnings))


class _Plan:
    """What to lint: article files per store, journal entries, and which stores' schema.json."""

    def __init__(self) -> None:
        self.articles: list[tuple[Store, ArticleFile]] = []
        self.journal_all = False
        self.journal_files: list[Path] = []
        self.schema_stores: list[Store] = []

    def add(self, store: Store, articles: list[ArticleFile], seen: set[tuple[str | None, str]]) -> None:
        for article in articles:
            if (store.mount, article.address) not in seen:
                seen.add((store.mount, article.address))
                self.articles.append((store, article))


def _no_store(project: Project) -> UsageError:
    return UsageError(
        "no-store",
        f"No .canon/ store at {project.root}, so there is nothing to lint.",
        "Run `canon init` to create one, or pass --root DIR.",
    )


def _check_store_layout(ctx: LintContext, store: Store) -> list[Finding]:
    out: list[Finding] = []
    for folder in (store.canon, store.articles, store.journal):
        if folder.is_symlink():
            out.append(
                finding(
                    "symlink", f"{folder.name}/ is a link to {os.readlink(folder)}; writes refuse it", ctx.rel(folder)
                )
            )
        elif folder != store.canon and os.path.lexists(folder) and not folder.is_dir():
            out.append(finding("unreadable", f"{folder.name} must be a folder; it is a file", ctx.rel(folder)))
    out += _leftovers(ctx, store)
    return out


def _leftovers(ctx: LintContext, store: Store) -> list[Finding]:
    """Temp files of killed writes, and links to folders (never walked), anywhere in articles/."""
    from pylon.canon.safeio import TEMP_MARK
    from pylon.canon.store import SKIP_DIRS

    out: list[Finding] = []
    for folder, dirs, files in os.walk(store.articles_dir):
        if folder == store.articles_dir:
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]  # a vault's tool folders are not the store's
        for name in dirs:
            if os.path.islink(os.path.join(folder, name)):
                out.append(
                    finding(
                        "symlink",
                        f"is a link to {os.readlink(os.path.join(folder, name))}; it is not "
                        "walked, and writes refuse it",
                        ctx.rel(os.path.join(folder, name)),
                    )
                )
        out += [
            finding("temp-file", "is a temp file a killed write left; delete it", ctx.rel(os.path.join(folder, n)))
            for n in files
            if n.startswith(".") and TEMP_MARK in n
        ]
    return out


def _nest_schema(store: Store) -> bool:
    """Rewrite a flat schema.json in pi-canon's shape (atomically, through the store's folder
    descriptor); False when it cannot be decoded or written."""
    import json

    from pylon.canon.safeio import SCHEMA_MAX, StoreDir, read_regular
    from pylon.canon.schema import nested_shape

    try:
        data = json.loads(read_regular(store.schema_file, SCHEMA_MAX, "schema.json").decode("utf-8"))
        with StoreDir(store.canon_dir, [], create=False) as folder:
            folder.replace("schema.json", (json.dumps(nested_shape(data), indent=2) + "\n").encode("utf-8"))
    except (OSError, ValueError, PylonError):
        return False
    return True


def _schema_findings(ctx: LintContext, store: Store) -> list[Finding]:
    schema = ctx.schema(store.mount)
    rel = ctx.rel(store.schema_path)
    return [finding("schema", p.message, rel, p.line, severity=WARNING) for p in schema.problems]


def _plan(project: Project, targets: list[str] | None) -> _Plan:
    plan = _Plan()
    if not targets:
        plan.articles = [(project.store, a) for a in walk_articles(project.store)]
        plan.journal_all = True
        plan.schema_stores = [project.store]
        return plan
    journal_dir = os.path.realpath(project.store.journal)
    seen: set[tuple[str | None, str]] = set()
    for arg in targets:
        full = os.path.realpath(os.path.join(project.cwd, arg))
        if full == journal_dir:
            plan.journal_all = True
            continue
        if os.path.dirname(full) == journal_dir:
            if not os.path.lexists(full):
                raise _nothing(arg)
            from pathlib import Path

            plan.journal_files.append(Path(full))
            continue
        address = to_address(arg, project)
        store = project.store_for(address.mount)
        if not address.path:
            # The root of a store: all of it (the journal too, for the project store).
            plan.add(store, list(walk_articles(store)), seen)
            if store not in plan.schema_stores:
                plan.schema_stores.append(store)
            plan.journal_all = plan.journal_all or store.mount is None
            continue
        chosen = list(walk_articles(store, address.path))
        if not chosen:
            governing = resolve(address, project).governing
            if governing is None:
                raise _nothing(arg)
            chosen = [ArticleFile(governing.path, str(store.article_path(governing.path)))]
        plan.add(store, chosen, seen)
    return plan


def _nothing(arg: str) -> UsageError:
    return UsageError(
        "nothing-to-lint",
        f"{arg!r} selects no article or journal entry, and no article governs it.",
        "Run `canon map` to list articles, or `canon lint` for the whole store.",
    )


def lint(
    project: Project,
    targets: list[str] | None = None,
    fix: bool = False,
    progress: Progress | None = None,
    committed: Committed | None = None,
) -> LintReport:
    """Lint the project store (or the articles `targets` select); with `fix`, apply safe fixes first.

    `committed(journal)` names the journal entries already committed unchanged (warnings on those
    fold into one note); the lint core knows no git, so the caller passes pylon.canon.git's."""
    from pylon.canon.lint import parallel
    from pylon.canon.lint.context import LintContext
    from pylon.canon.lint.engine import lint_journal

    if not project.store.exists():
        raise _no_store(project)
    plan = _plan(project, targets)
    # Listing every store pays off from a few hundred articles; a handful asks the disk per lookup.
    ctx = LintContext.full(project) if not targets or len(plan.articles) > 200 else LintContext.lazy(project)
    report = LintReport(base=str(ctx.base))
    for store in plan.schema_stores:
        report.findings += _check_store_layout(ctx, store)
        if fix and ctx.schema(store.mount).flat and _nest_schema(store):
            report.fixed.append(FixedFile(ctx.rel(store.schema_path), ["schema"]))
            ctx = LintContext.full(project) if not targets or len(plan.articles) > 200 else LintContext.lazy(project)
        report.findings += _schema_findings(ctx, store)
    total = len(plan.articles)

    def journal() -> None:
        if plan.journal_all or plan.journal_files:
            findings, report.journal = lint_journal(
                ctx, project.store, None if plan.journal_all else plan.journal_files, committed
            )
            report.findings.extend(findings)

    for findings, fixed in parallel.run(ctx, plan.articles, fix, parallel.jobs_for(total), progress, journal):
        report.findings += findings
        report.fixed += [FixedFile(path, rules) for path, rules in fixed]
    # Entries only named like articles (folders, broken links, FIFOs) are findings, not articles,
    # so this count agrees with `canon status` and `canon map`.
    report.articles = sum(1 for _, article in plan.articles if article.is_article)
    report.findings.sort(key=lambda f: (f.path, f.line))  # stable: rule order within a line
    return report


def lint_article(project: Project, address: Address | str) -> list[Finding]:
    """Every finding for one article (for `canon write` advice); [] when it does not exist."""
    from pylon.canon.lint.context import LintContext
    from pylon.canon.lint.engine import lint_article_file

    if isinstance(address, str):
        address = to_address(address, project)
    store = project.store_for(address.mount)
    path = store.article_path(address.path)
    if not address.path or not os.path.lexists(path):
        return []
    ctx = LintContext.lazy(project)
    findings, _ = lint_article_file(ctx, store, ArticleFile(address.path, str(path), path_kind(str(path))), False)
    return findings


def exit_code(report: LintReport, strict: bool) -> int:
    return 1 if report.failed(strict) else 0
