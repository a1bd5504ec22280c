"""`canon stale` and `canon coverage`: one `git log --name-only` pass over history (never a git
call per file), mapped through the current articles (pylon.canon.git.govern).

stale: by ancestry, not dates: a commit touching a path an article governs is one it is behind
unless one of the article's own commits descends from it (see `stale`). coverage: `git ls-files` once,
churn from the same log pass limited to the last CHURN_DAYS days.
"""

from __future__ import annotations

import os

from pylon.canon.address import Address
from pylon.canon.git.govern import ARTICLES_PREFIX, Governance
from pylon.canon.git.run import Repo, open_repo
from pylon.canon.record import Record
from pylon.canon.store import Project

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

# git log flushes its output after every commit into a pipe: thousands of small writes, each a
# wake-up and a read here. GIT_FLUSH=0 lets it fill its buffer first.
NO_FLUSH = {"GIT_FLUSH": "0"}
CHURN_DAYS = 90
BROAD_FILES = 200  # an article governing this many tracked files is listed as broad
COMMITS_KEPT = 20  # commits listed per stale article (the count is always exact)


class Commit(Record):
    __slots__ = ("sha", "time", "subject", "paths", "parents")

    def __init__(self, sha: str, time: int, subject: str, paths: list[str], parents: tuple[str, ...] = ()) -> None:
        self.sha = sha
        self.time = time  # committer time, Unix seconds
        self.subject = subject
        self.paths = paths
        self.parents = parents  # only from an ancestry pass


def _log_args(pathspec: str | None, since_days: int | None, ancestry: bool) -> list[str]:
    args = ["log", "-z", "--name-only", "--no-renames", "--format=%x01%H %ct %P%x02%s"]
    if ancestry:
        args += ["--topo-order", "--diff-merges=off"]
        if pathspec:
            args += ["--full-history", "--parents"]
    else:
        args.append("--no-merges")
    if since_days is not None:
        args.append(f"--since={since_days}.days")
    # A pathspec makes git filter every commit's tree (about twice the time): only when needed.
    return [*args, "HEAD", "--", *([pathspec] if pathspec else [])]


def _records(data: bytes) -> Iterator[tuple[list[bytes], bytes, list[bytes]]]:
    """The raw records of a `_log_args` pass: ([sha, time, parent...], subject, paths), all bytes."""
    for chunk in (b"\0" + data).split(b"\0\x01")[1:]:
        header, _, rest = chunk.partition(b"\0")
        head, _, subject = header.partition(b"\x02")
        yield [f for f in head.split(b" ") if f], subject, [p for p in rest.lstrip(b"\n").split(b"\0") if p]


def _commit(fields: list[bytes], subject: bytes, paths: list[bytes]) -> Commit:
    return Commit(
        fields[0].decode(),
        int(fields[1]),
        subject.decode("utf-8", "replace"),
        [os.fsdecode(p) for p in paths],
        tuple(f.decode() for f in fields[2:]),
    )


def log_pass(
    repo: Repo, pathspec: str | None, since_days: int | None = None, ancestry: bool = False
) -> Iterator[Commit]:
    """Every non-merge commit reachable from HEAD, newest first, with the paths it touched.

    ancestry: merges too (with no paths: they only connect history), each commit with its parents,
    in topological order (every commit before its parents), so ancestry can be computed in one
    pass; with a pathspec the parents are rewritten (`--full-history --parents`) to the listed
    commits, so no side branch is simplified away."""
    if repo.head is None:
        return
    for fields, subject, paths in _records(repo.run(*_log_args(pathspec, since_days, ancestry), env=NO_FLUSH)):
        yield _commit(fields, subject, paths)


def _pathspec(repo: Repo, project: Project) -> str | None:
    """The project's folder as a top-relative pathspec; None when the project is the whole repository."""
    rel = os.path.relpath(os.path.realpath(project.root_dir), repo.top)
    return None if rel == "." else ":/" + rel.replace(os.sep, "/")


def _dirty_articles(repo: Repo, gov: Governance) -> set[Address]:
    """Articles with uncommitted changes (or never committed): they are being written, so current."""
    out = repo.run(
        "status",
        "--porcelain",
        "-z",
        "--untracked-files=all",
        "--",
        *(prefix + ARTICLES_PREFIX for prefix, _ in gov.stores),
    )
    found: set[Address] = set()
    for entry in out.split(b"\0"):
        article = gov.article_of(os.fsdecode(entry[3:])) if len(entry) > 3 else None
        if article is not None:
            found.add(article)
    return found


class StaleArticle(Record):
    __slots__ = ("address", "file", "last_change", "behind", "count", "newest")

    def __init__(
        self,
        address: Address,
        file: str,
        last_change: Commit | None,
        behind: list[Commit] | None = None,
        count: int = 0,
        newest: int = 0,
    ) -> None:
        self.address = address
        self.file = file
        self.last_change = last_change  # the newest commit that touched the article (None: not in history)
        self.behind = [] if behind is None else behind  # commits touching governed paths, newest first
        self.count = count
        self.newest = newest  # the newest of all those commits' times (the kept list may not hold it)

    @property
    def days_behind(self) -> float:
        """Days from the article's last change to the newest commit it is behind (0 when that
        commit, on a merged branch, is dated before the article's change)."""
        if not self.behind:
            return 0.0
        since = self.last_change.time if self.last_change else self.behind[-1].time
        return max(0.0, (self.newest - since) / 86400)


class StaleReport(Record):
    __slots__ = ("articles", "commits", "stale", "days")

    def __init__(self, articles: int, commits: int, stale: list[StaleArticle], days: int) -> None:
        self.articles = articles
        self.commits = commits
        self.stale = stale
        self.days = days


def _classify(gov: Governance, path: str, bits: dict[Address, int]) -> tuple[bool, Address, int] | None:
    article = gov.article_of(path)
    found = article if article is not None else gov.governing_path(path)
    if found is None:
        return None
    return article is not None, found, bits.setdefault(found, 1 << len(bits))


def stale(project: Project, days: int = 0) -> StaleReport:
    """An article is behind every commit touching a path it governs that its last update does not
    descend from: the commits reachable from HEAD and from none of the article's own commits. One
    pass in topological order carries, from each commit to its parents, the set of articles updated
    in it or any descendant (a bit set), so a merged branch's commits count by ancestry, whatever
    their dates."""
    repo = open_repo(project.root_dir)
    data = b""
    if repo.head is not None:
        # The log pass runs while the articles are listed and their status read.
        log = repo.start(*_log_args(_pathspec(repo, project), None, True), env=NO_FLUSH)
        try:
            gov = Governance(project, repo.top)
            current = _dirty_articles(repo, gov)
        except BaseException:
            log.abandon()
            raise
        data = log.finish()
    else:
        gov = Governance(project, repo.top)
        current = set()
    last: dict[Address, Commit] = {}
    rows: dict[Address, StaleArticle] = {}
    bits: dict[Address, int] = {}
    # Each path named in history, once: (True, its article, bit) for an article's own file,
    # (False, the article governing it, bit) for a governed asset, None for anything else.
    seen: dict[bytes, tuple[bool, Address, int] | None] = {}
    skip_current = 0  # articles being written are current: never behind
    for address in current:
        skip_current |= bits.setdefault(address, 1 << len(bits))
    below: dict[bytes, int] = {}  # commit -> articles updated in a commit that descends from it
    commits = 0
    for fields, subject, paths in _records(data):
        covered = below.pop(fields[0], 0)
        if len(fields) < 4:
            commits += 1  # merges connect history; they are not counted or judged
        governed: dict[Address, tuple[int, list[bytes]]] = {}
        this: Commit | None = None  # decoded once, shared by every article it is the last change of
        for raw in paths:
            if raw in seen:
                hit = seen[raw]
            else:
                hit = seen[raw] = _classify(gov, os.fsdecode(raw), bits)
            if hit is None:
                continue
            is_article, address, bit = hit
            if is_article:
                covered |= bit
                if address not in last:  # the first in topological order: its newest change
                    if this is None:
                        this = _commit(fields, subject, paths)
                    last[address] = this
            elif address in governed:
                governed[address][1].append(raw)
            else:
                governed[address] = (bit, [raw])
        if governed:
            skip = covered | skip_current
            for g, (bit, raws) in governed.items():
                if bit & skip:
                    continue
                row = rows.get(g)
                if row is None:
                    row = rows[g] = StaleArticle(g, gov.article_file(g), None)
                row.count += 1
                when = int(fields[1])
                row.newest = max(row.newest, when)
                if len(row.behind) < COMMITS_KEPT:
                    row.behind.append(
                        Commit(
                            fields[0].decode(), when, subject.decode("utf-8", "replace"), [os.fsdecode(p) for p in raws]
                        )
                    )
        if covered:
            for parent in fields[2:]:
                below[parent] = below.get(parent, 0) | covered
    for address, row in rows.items():
        row.last_change = last.get(address)
    # An article never seen in history was created in the working tree after all these commits:
    # it is new, not stale (and `current` covers uncommitted ones).
    found = [r for r in rows.values() if r.last_change is not None and r.days_behind >= days]
    found.sort(key=lambda r: (-r.count, -r.days_behind, str(r.address)))
    return StaleReport(sum(len(s) for s in gov.articles.values()), commits, found, days)


class Folder(Record):
    __slots__ = ("path", "files", "churn", "loose")

    def __init__(self, path: str, files: int, churn: int, loose: bool = False) -> None:
        self.path = path  # repository-relative folder, '' for the top
        self.files = files  # ungoverned tracked files in it
        self.churn = churn  # changes to those files in the last CHURN_DAYS days
        self.loose = loose  # only the files directly in a folder whose other files are governed


class CoverageReport(Record):
    __slots__ = ("tracked", "governed", "ungoverned", "broad", "per_article", "churn_days")

    def __init__(
        self,
        tracked: int,
        governed: int,
        ungoverned: list[Folder],
        broad: list[tuple[Address, int]],
        per_article: dict[Address, int],
        churn_days: int = CHURN_DAYS,
    ) -> None:
        self.tracked = tracked
        self.governed = governed
        self.ungoverned = ungoverned
        self.broad = broad
        self.per_article = per_article
        self.churn_days = churn_days

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
    broad = sorted(
        ((a, n) for a, n in per_article.items() if n >= BROAD_FILES), key=lambda item: (-item[1], str(item[0]))
    )
    return CoverageReport(tracked, sum(per_article.values()), ungoverned, broad, per_article)
