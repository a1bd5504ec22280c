"""Lint article files on every core for large stores (fork-based; serial elsewhere).

Workers are forked after the article sets and schemas are loaded, so they inherit them instead
of receiving them; only the findings travel back. Chunks keep the progress bar moving.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator

from pylon.canon.lint.context import LintContext
from pylon.canon.lint.findings import Finding
from pylon.canon.store import ArticleFile, Store

PARALLEL_MIN = 4000  # below this, starting workers costs more than it saves
CHUNK = 500

Work = list[tuple[Store, ArticleFile]]
Result = tuple[list[Finding], list[tuple[str, list[str]]]]  # findings, (path, fixed rules)

# What forked workers inherit: (ctx, work, fix) of the run in progress; empty between runs.
_state: list[tuple[LintContext, Work, bool]] = []


def jobs_for(total: int) -> int:
    """How many processes to use: PYLON_LINT_JOBS if set, else every core for large stores."""
    wanted = os.environ.get("PYLON_LINT_JOBS", "").strip()
    if wanted.isdigit() and int(wanted) >= 1:
        jobs = int(wanted)
    elif total >= PARALLEL_MIN:
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    else:
        jobs = 1
    return jobs if sys.platform.startswith("linux") else 1


def _chunk(bounds: tuple[int, int]) -> Result:
    from pylon.canon.lint.engine import lint_article_file

    ctx, work, fix = _state[0]
    findings: list[Finding] = []
    fixed: list[tuple[str, list[str]]] = []
    for store, article in work[bounds[0] : bounds[1]]:
        found, rules = lint_article_file(ctx, store, article, fix)
        findings += found
        if rules:
            fixed.append((ctx.rel(article.path), rules))
    return findings, fixed


def run(
    ctx: LintContext,
    work: Work,
    fix: bool,
    jobs: int,
    progress: Callable[[int, int], None] | None,
    meanwhile: Callable[[], None] | None = None,
) -> Iterator[Result]:
    """Yield each chunk's result in order, using `jobs` processes. `meanwhile` runs in this process
    while the workers start on the articles (the journal), or first when there are no workers."""
    total = len(work)
    _state[:] = [(ctx, work, fix)]
    for mount, _ in ctx.stores():
        ctx.schema(mount)  # load before forking so every worker inherits it
    bounds = [(i, min(i + CHUNK, total)) for i in range(0, total, CHUNK)]
    pool = None
    if jobs > 1 and len(bounds) > 1:
        import multiprocessing

        try:
            pool = multiprocessing.get_context("fork").Pool(jobs)
        except OSError:
            pool = None  # no processes to spare (limits, sandbox): one process does it all
    try:
        results = pool.imap(_chunk, bounds) if pool is not None else map(_chunk, bounds)
        if meanwhile is not None:
            meanwhile()
        for b, result in zip(bounds, results):
            if progress is not None:
                progress(b[1], total)
            yield result
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        _state.clear()
