"""The board's JSON answers. Each one is a library call (pylon.workspace, pylon.canon) shaped as the
matching CLI command's `--json` document: the board has no rule of its own."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any

from pylon.errors import PylonError
from pylon.serve.keep import Keeper

JOURNAL_PAGE = 200  # entries the journal timeline shows
ARTICLE_JOURNAL = 20  # entries shown with an article


@dataclass
class Board:
    """What every answer needs: the checkout served, and the lock that runs the board's actions one
    at a time. Reads run in parallel, as separate CLI processes would: the library serialises its
    captures itself (`capture.lock`) and every op takes the op lock."""

    root: str
    allow_actions: bool = False
    action_lock: threading.Lock = field(default_factory=threading.Lock)
    memory_generation: int = 0  # bumped by the watcher when .canon/ changes (graph cache key)
    _graph: tuple[int, Any] | None = None
    keep: Keeper = field(default_factory=Keeper)  # sides and surveys kept between changes (keep.py)

    def checkout(self) -> Any:
        from pylon.workspace.repo import locate

        return locate(self.root)

    def project(self) -> Any:
        from pylon.canon.store import open_project

        return open_project(cwd=self.root)

    def reach(self) -> Any:
        """What an answer built from a request's path or address may read: the checkout (and the
        mounts its store's configuration names), through pylon/boundary.py."""
        from pylon.boundary import Reach

        return Reach("pylon serve", [self.root])


def meta(board: Board, query: dict[str, str]) -> dict[str, object]:
    from pylon import __version__

    project = board.project()
    return {
        "root": board.root,
        "allow_actions": board.allow_actions,
        "version": __version__,
        "store": project.store.exists(),
        "watching": board.keep.watching,
    }


def agents(board: Board, query: dict[str, str]) -> dict[str, object]:
    """`ws list --json` (the first thing the page draws), each worktree with `watcher`: the pid of
    the `ws watch` that `ws new --watch` keeps running there, or None; plus `departed`, every
    foreign worktree shown as such (where `ws list` only counts them). Kept between changes
    (keep.py); `fresh=1` reads every worktree anew."""
    from pylon.workspace.worktrees.listing import list_worktrees
    from pylon.workspace.worktrees.proof import admin_dir_of
    from pylon.workspace.worktrees.watchers import holder

    listed, age = board.keep.survey(
        "agents", lambda read: list_worktrees(board.checkout(), read, departed=True), query.get("fresh") == "1"
    )
    rows = listed["worktrees"]
    assert isinstance(rows, list)  # the `ws list --json` document's list
    answer = {**listed, "worktrees": [dict(row) for row in rows], "survey": _survey(age)}  # (the kept one unchanged)
    for row in answer["worktrees"]:
        admin = admin_dir_of(str(row["path"]))
        row["watcher"] = holder(admin) if admin else None  # not kept: a watcher starts without file events
    return answer


def conflicts(board: Board, query: dict[str, str]) -> dict[str, object]:
    """`ws conflicts --json`: every pair, and each worktree against the checkout (`git-too-old` on
    git before 2.38), the departed worktrees among them (named in `departed`). Kept between changes
    like `agents`."""
    from pylon.workspace.worktrees.listing import check_conflicts

    doc, age = board.keep.survey(
        "conflicts", lambda read: check_conflicts(board.checkout(), [], read, departed=True), query.get("fresh") == "1"
    )
    return {**doc, "survey": _survey(age)}


def sessions(board: Board, query: dict[str, str]) -> dict[str, object]:
    """`pylon sessions --json`: the agents' sessions in this repository's worktrees (their own
    transcripts, read incrementally through pylon.sessions' cache)."""
    from pylon.sessions import codex, where
    from pylon.sessions.collect import collect, document

    places = where.places(board.root, codex.home())
    return document(collect(places), places)


def _survey(age: float) -> dict[str, object]:
    """How the answer was made: now, or kept from an earlier survey with nothing changed since."""
    return {"kept": age > 0, "age_ms": round(age * 1000)}


def diff(board: Board, query: dict[str, str]) -> dict[str, object]:
    """`ws diff --json --in ID`: the session's bounded diff against its baseline."""
    from pylon.workspace.repo import locate
    from pylon.workspace.tracking.diff import diff as run_diff
    from pylon.workspace.worktrees.new import path

    chunks: list[bytes] = []
    where = path(board.checkout(), query.get("id", ""))
    summary = run_diff(locate(str(where["path"])), chunks.append)
    text = b"".join(chunks)
    try:
        summary["diff"] = text.decode("utf-8")
    except UnicodeDecodeError:
        summary["diff"] = text.decode("utf-8", "replace")
    summary["id"] = where["id"]
    return summary


def timeline(board: Board, query: dict[str, str]) -> dict[str, object]:
    """`ws log --json --limit N`."""
    from pylon.workspace.ops.log import log

    return log(board.checkout(), _int(query.get("limit"), 50), settled=True)  # as `ws log`: changes no hook saw first


def _int(text: str | None, default: int) -> int:
    try:
        return max(1, min(int(text or default), 10_000))
    except ValueError:
        return default


def _graph(board: Board) -> Any:
    from pylon.canon.views.graph import build

    cached = board._graph
    generation = board.memory_generation
    if cached is not None and cached[0] == generation and generation >= 0:
        return cached[1]
    found = build(board.project())
    board._graph = (generation, found)
    return found


def graph(board: Board, query: dict[str, str]) -> dict[str, object]:
    """`canon graph --json`, folded: `open` lists the folders shown open (level of detail), or
    `address` asks for one article's neighbourhood (`canon graph ADDRESS --json`)."""
    from pylon.serve.fold import fold

    if query.get("address"):
        from pylon.boundary import confined
        from pylon.canon.views.graph import neighbourhood

        with confined(board.reach()):  # an address from the request: nothing outside the checkout
            return neighbourhood(_graph(board), board.project(), query["address"]).to_doc()
    opened = [f for f in query.get("open", "").split(",") if f]
    return fold(_graph(board), opened, _int(query.get("max"), 300))


def article(board: Board, query: dict[str, str]) -> dict[str, object]:
    """`canon read ADDRESS --json`, with up to ARTICLE_JOURNAL journal entries in full."""
    from pylon.boundary import confined
    from pylon.canon.article import read_article
    from pylon.canon.journal import read_entry

    with confined(board.reach()):  # an address from the request: nothing outside the checkout is read
        project = board.project()
        view = read_article(project, query.get("address", ""), journal_limit=ARTICLE_JOURNAL)
        store = project.store_for(view.address.mount)
        entries = []
        for name in view.journal:
            try:
                entry = read_entry(os.path.join(store.journal_dir, name))
            except (OSError, PylonError):
                continue
            entries.append({"name": name, "logged": entry.logged, "subjects": entry.subjects, "body": entry.text})
    return {
        "address": str(view.address),
        "requested": str(view.requested),
        "file": view.file,
        "capsule": view.doc.owned.get("capsule"),
        "updated": view.doc.owned.get("updated"),
        "scope": view.doc.owned.get("scope"),
        "body": view.doc.body,
        "journal": entries,
        "journal_total": view.journal_total,
    }


def journal(board: Board, query: dict[str, str]) -> dict[str, object]:
    """The newest journal entries of the project store, newest first (by `logged`, then name)."""
    from pylon.canon.journal import is_entry_name, read_entry, sort_key

    folder = board.project().store.journal_dir
    try:
        names = [n for n in os.listdir(folder) if is_entry_name(n)]
    except OSError:
        names = []
    names.sort(reverse=True)  # dated names: a cheap first order, refined by `logged` below
    limit = _int(query.get("limit"), JOURNAL_PAGE)
    entries = []
    for name in names[: limit * 2]:
        try:
            entry = read_entry(os.path.join(folder, name))
        except (OSError, PylonError):
            continue
        entries.append(
            {
                "name": name,
                "logged": entry.logged,
                "subjects": entry.subjects,
                "first_line": next((ln for ln in entry.text.splitlines() if ln.strip()), "")[:200],
            }
        )
    entries.sort(key=lambda e: sort_key(e["logged"], e["name"]), reverse=True)
    return {"entries": entries[:limit], "total": len(names)}


def search(board: Board, query: dict[str, str]) -> dict[str, object]:
    """`canon search QUERY --journal --json` (the BM25 ranking of pylon.canon.views.search)."""
    from pylon.canon.views.search import search as run_search

    found = run_search(board.project(), query.get("q", ""), journal=True, limit=_int(query.get("limit"), 20))
    return {
        "query": found.query,
        "terms": found.terms,
        "total": found.total,
        "more": found.more,
        "journal_matches": found.journal_matches,
        "results": [
            {"kind": h.kind, "address": h.address, "capsule": h.capsule, "score": h.score, "snippet": h.snippet}
            for h in found.hits
        ],
    }


def _kept(name: str, make: Any) -> Any:
    """An answer of the Memory view kept between changes (keep.py): lint, stale and coverage of a
    20,000-article store take seconds each, and a page shown again asks again."""

    def answer(board: Board, query: dict[str, str]) -> dict[str, object]:
        return board.keep.survey(name, lambda read: make(board), query.get("fresh") == "1")[0]

    answer.__doc__ = make.__doc__
    return answer


def _coverage(board: Board) -> dict[str, object]:
    """`canon coverage --json`."""
    from pylon.canon.git.history import coverage as run_coverage

    report = run_coverage(board.project())
    return {
        "tracked": report.tracked,
        "governed": report.governed,
        "share": round(report.share, 4),
        "churn_days": report.churn_days,
        "ungoverned": [
            {"folder": f.path, "files": f.files, "churn": f.churn, "loose": f.loose} for f in report.ungoverned
        ],
        "broad": [{"article": str(a), "files": n} for a, n in report.broad],
        "articles": {str(a): n for a, n in sorted(report.per_article.items())},
    }


def _stale(board: Board) -> dict[str, object]:
    """`canon stale --json` (the commits left out: the board marks the articles)."""
    from pylon.canon.git.history import stale as run_stale

    report = run_stale(board.project())
    return {
        "articles": report.articles,
        "commits_scanned": report.commits,
        "stale": [
            {
                "address": str(s.address),
                "file": s.file,
                "commits_behind": s.count,
                "days_behind": round(s.days_behind, 1),
                "newest": s.behind[0].subject if s.behind else None,
            }
            for s in report.stale
        ],
    }


def _lint(board: Board) -> dict[str, object]:
    """`canon lint --json` of the whole store (git's journal-changed rule included, as the CLI runs it)."""
    from pylon.canon.git.journal import committed_entries, journal_findings
    from pylon.canon.lint import formats
    from pylon.canon.lint import lint as run_lint

    project = board.project()
    report = run_lint(project, None, committed=committed_entries)
    changed = journal_findings(project, None, report.base)
    if changed:
        report.findings = sorted(report.findings + changed, key=lambda f: (f.path, f.line))
    return formats.render_json(report)


coverage, stale, lint = _kept("coverage", _coverage), _kept("stale", _stale), _kept("lint", _lint)

ENDPOINTS = {
    "meta": meta,
    "agents": agents,
    "conflicts": conflicts,
    "diff": diff,
    "timeline": timeline,
    "graph": graph,
    "article": article,
    "journal": journal,
    "search": search,
    "coverage": coverage,
    "stale": stale,
    "lint": lint,
}
ENDPOINTS["sessions"] = sessions  # the Agents view's sessions (issue 32)
