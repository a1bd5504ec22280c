"""`canon stale` and `canon coverage`: one `git log --name-only` pass over history (never a git
call per file), mapped through the current articles (pylon.canon.git.govern).

stale: walking commits newest first, an article's first appearance is its last change; every commit
before that (newer) touching a path it governs is one it is behind. coverage: `git ls-files` once,
churn from the same log pass limited to the last CHURN_DAYS days.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from pylon.canon.address import Address
from pylon.canon.git.govern import ARTICLES_PREFIX, Governance
from pylon.canon.git.run import Repo, open_repo
from pylon.canon.store import Project

CHURN_DAYS = 90
BROAD_FILES = 200  # an article governing this many tracked files is listed as broad
COMMITS_KEPT = 20  # commits listed per stale article (the count is always exact)


@dataclass
class Commit:
    sha: str
    time: int  # committer time, Unix seconds
    subject: str
    paths: list[str]


def log_pass(repo: Repo, pathspec: str | None, since_days: int | None = None) -> Iterator[Commit]:
    """Every non-merge commit reachable from HEAD, newest first, with the paths it touched."""
    if repo.head is None:
        return
    args = ["log", "-z", "--name-only", "--no-renames", "--no-merges", "--format=%x01%H %ct %s"]
    if since_days is not None:
        args.append(f"--since={since_days}.days")
    # A pathspec makes git filter every commit's tree (about twice the time): only when needed.
    data = repo.run(*args, "HEAD", "--", *([pathspec] if pathspec else []))
    for chunk in (b"\0" + data).split(b"\0\x01")[1:]:
        header, _, rest = chunk.partition(b"\0")
        sha, _, tail = header.decode("utf-8", "replace").partition(" ")
        stamp, _, subject = tail.partition(" ")
        paths = [os.fsdecode(p) for p in rest.lstrip(b"\n").split(b"\0") if p]
        yield Commit(sha, int(stamp), subject, paths)


def _pathspec(repo: Repo, project: Project) -> str | None:
    """The project's folder as a top-relative pathspec; None when the project is the whole repository."""
    rel = os.path.relpath(os.path.realpath(project.root_dir), repo.top)
    return None if rel == "." else ":/" + rel.replace(os.sep, "/")


def _dirty_articles(repo: Repo, gov: Governance) -> set[Address]:
    """Articles with uncommitted changes (or never committed): they are being written, so current."""
    out = repo.run("status", "--porcelain", "-z", "--untracked-files=all", "--",
                   *(prefix + ARTICLES_PREFIX for prefix, _ in gov.stores))
    found: set[Address] = set()
    for entry in out.split(b"\0"):
        article = gov.article_of(os.fsdecode(entry[3:])) if len(entry) > 3 else None
        if article is not None:
            found.add(article)
    return found


@dataclass
class StaleArticle:
    address: Address
    file: str
    last_change: Commit | None  # the newest commit that touched the article (None: not in history)
    behind: list[Commit] = field(default_factory=list)  # newer commits touching governed paths, newest first
    count: int = 0

    @property
    def days_behind(self) -> float:
        if not self.behind:
            return 0.0
        since = self.last_change.time if self.last_change else self.behind[-1].time
        return max(0.0, (self.behind[0].time - since) / 86400)


@dataclass
class StaleReport:
    articles: int
    commits: int
    stale: list[StaleArticle]
    days: int


def stale(project: Project, days: int = 0) -> StaleReport:
    repo = open_repo(project.root_dir)
    gov = Governance(project, repo.top)
    current = _dirty_articles(repo, gov) if repo.head else set()
    seen: set[Address] = set()
    rows: dict[Address, StaleArticle] = {}
    commits = 0
    for commit in log_pass(repo, _pathspec(repo, project)):
        commits += 1
        touched: set[Address] = set()
        governed: dict[Address, list[str]] = {}
        for path in commit.paths:
            article = gov.article_of(path)
            if article is not None:
                touched.add(article)
                continue
            g = gov.governing_path(path)
            if g is not None:
                governed.setdefault(g, []).append(path)
        for article in touched:
            if article not in seen:
                seen.add(article)
                if article in rows:
                    rows[article].last_change = commit
        for g, paths in governed.items():
            if g in seen or g in current or g in touched:
                continue
            row = rows.get(g)
            if row is None:
                row = rows[g] = StaleArticle(g, gov.article_file(g), None)
            row.count += 1
            if len(row.behind) < COMMITS_KEPT:
                row.behind.append(Commit(commit.sha, commit.time, commit.subject, paths))
    # An article never seen in history was created in the working tree after all these commits:
    # it is new, not stale (and `current` covers uncommitted ones).
    found = [r for r in rows.values() if r.last_change is not None and r.days_behind >= days]
    found.sort(key=lambda r: (-r.count, -r.days_behind, str(r.address)))
    return StaleReport(sum(len(s) for s in gov.articles.values()), commits, found, days)


@dataclass
class Folder:
    path: str  # repository-relative folder, '' for the top
    files: int  # ungoverned tracked files in it
    churn: int  # changes to those files in the last CHURN_DAYS days
    loose: bool = False  # only the files directly in a folder whose other files are governed


@dataclass
class CoverageReport:
    tracked: int
    governed: int
    ungoverned: list[Folder]
    broad: list[tuple[Address, int]]
    per_article: dict[Address, int]
    churn_days: int = CHURN_DAYS

    @property
    def share(self) -> float:
        return self.governed / self.tracked if self.tracked else 0.0


def _folders(path: str) -> list[str]:
    """'' (the top) and every folder above `path`: a/b/c.py -> ['', 'a', 'a/b']."""
    head = path.rpartition("/")[0]
    if not head:
        return [""]
    parts = head.split("/")
    return ["", *("/".join(parts[: i + 1]) for i in range(len(parts)))]


def coverage(project: Project) -> CoverageReport:
    repo = open_repo(project.root_dir)
    gov = Governance(project, repo.top)
    spec = _pathspec(repo, project)
    listed = repo.run("ls-files", "-z", "--full-name", "--", spec or ":/")
    churn: dict[str, int] = {}
    for commit in log_pass(repo, spec, CHURN_DAYS):
        for path in commit.paths:
            churn[path] = churn.get(path, 0) + 1
    total: dict[str, int] = {}  # tracked files below each folder
    bare: dict[str, list[int]] = {}  # folder -> [ungoverned files below, their churn]
    direct: dict[str, list[int]] = {}  # folder -> [ungoverned files directly in it, their churn]
    per_article: dict[Address, int] = {}
    tracked = 0
    chains: dict[str, list[str]] = {}
    for raw in listed.split(b"\0"):
        if not raw:
            continue
        path = os.fsdecode(raw)
        address = gov.address_of(path)
        if address is None:
            continue  # the store's own files, or outside the project
        tracked += 1
        g = gov.governing(address)
        head = path.rpartition("/")[0]
        folders = chains.get(head)
        if folders is None:
            folders = chains[head] = _folders(path)
        for folder in folders:
            total[folder] = total.get(folder, 0) + 1
        if g is not None:
            per_article[g] = per_article.get(g, 0) + 1
            continue
        heat = churn.get(path, 0)
        for folder in folders:
            row = bare.setdefault(folder, [0, 0])
            row[0] += 1
            row[1] += heat
        row = direct.setdefault(folders[-1], [0, 0])
        row[0] += 1
        row[1] += heat
    ungoverned: list[Folder] = []
    for folder, (count, heat) in bare.items():
        if not folder or count < total[folder]:
            continue
        parent = folder.rpartition("/")[0]
        if parent == "" or bare.get(parent, [0])[0] < total[parent]:
            ungoverned.append(Folder(folder, count, heat))  # the topmost folder with nothing governed
    for folder, (count, heat) in direct.items():
        if folder == "" or bare[folder][0] < total[folder]:
            ungoverned.append(Folder(folder, count, heat, loose=True))
    ungoverned.sort(key=lambda f: (-f.churn, -f.files, f.path))
    broad = sorted(((a, n) for a, n in per_article.items() if n >= BROAD_FILES), key=lambda item: (-item[1], str(item[0])))
    return CoverageReport(tracked, sum(per_article.values()), ungoverned, broad, per_article)
