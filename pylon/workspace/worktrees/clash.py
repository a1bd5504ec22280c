"""The write-time check: would writing PATH here collide with what another live worktree changed?

Asked before every write of an agent's file tools (pylon/hooks/clash.py) and by `pylon ws check
PATH...`. For each other live worktree of the repository (the main checkout, owned sessions, the
clients' own worktrees, plain `git worktree add` ones) the question is per path, not per
worktree: does its file PATH (on disk now: committed and uncommitted work alike) differ from
PATH in the base the two worktrees share? The base of a pair: an owned session and the main
checkout, the session's apply base (its baseline, or its state at its last apply in effect:
applied.py, the base `ws apply` merges on); any other pair, the merge base of their starts (a
session's apply base, another worktree's HEAD, the main checkout's HEAD).

Nothing here runs a merge of whole trees. The common case costs stat calls and one read of PATH
in each other worktree: worktrees are listed from git's admin folders, HEADs read from ref files,
registry records read as JSON, and everything that needs git and never changes is cached in
`<git-common-dir>/pylon/clash.cache` (merge bases by commit pair, `BASE:PATH` blob ids; the apply
bases keyed by the op log's ref folder and packed-refs stamps). A file is compared with its base
by git's blob id of its bytes (when the worktree has a `.gitattributes` or the file holds CRLF, a
mismatch is confirmed by `git hash-object --path`, which applies the filters). Only a path some
other worktree changed costs more: its changed lines, and, when the content after the write is
known (`after`), `git merge-file` of the three versions says whether it would conflict and where.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from pylon.workspace.worktrees.alltrees import Refs, Tree, git_dirs, trees
from pylon.workspace.worktrees.alltrees import records as records_of

CACHE_NAME = "clash.cache"
MAX_BYTES = 4 << 20  # a file larger than this is compared by id only (no lines, no merge)
MAX_CACHE = 4096  # entries per cache table before it is emptied


class Finding:
    """Another worktree changed `path` since the base it shares with this one."""

    __slots__ = ("path", "other", "base", "lines", "conflict", "ours", "binary", "deleted")

    def __init__(self, path: str, other: dict[str, Any], base: str) -> None:
        self.path, self.other, self.base = path, other, base
        self.lines: list[list[int]] = []  # [start, count] of the other worktree's changed lines (its version)
        self.conflict: bool | None = None  # None: not known (binary, or no version of ours to merge)
        self.ours: list[list[int]] = []  # [start, count] of our changed lines that meet theirs (our version)
        self.binary = False
        self.deleted = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "other": self.other,
            "base": self.base,
            "lines": self.lines,
            "conflict": self.conflict,
            "ours": self.ours,
            "binary": self.binary,
            "deleted": self.deleted,
        }


# -- the cache -----------------------------------------------------------------------------------


class Cache:
    """Answers that need git, kept between hook processes (marshal; rebuilt when unreadable)."""

    def __init__(self, common: str) -> None:
        self.path = os.path.join(common, "pylon", CACHE_NAME)
        self.data: dict[str, Any] = {}
        self.dirty = False
        try:
            import marshal

            with open(self.path, "rb") as fh:
                loaded = marshal.loads(fh.read())
            if isinstance(loaded, dict) and loaded.get("v") == 1:
                self.data = loaded
        except (OSError, ValueError, EOFError, TypeError):
            self.data = {}
        self.data.setdefault("v", 1)

    def table(self, name: str) -> dict[str, Any]:
        table = self.data.setdefault(name, {})
        if len(table) > MAX_CACHE:
            table.clear()
        return table

    def save(self) -> None:
        if not self.dirty:
            return
        import marshal

        from pylon.atomic import replace_unsynced

        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            replace_unsynced(self.path, marshal.dumps(self.data))
        except OSError:
            pass  # a cache that cannot be written is recomputed next time


def _stamp(path: str) -> list[int]:
    try:
        st = os.stat(path)
    except OSError:
        return [0, 0]
    return [st.st_mtime_ns, st.st_size]


# -- the check -----------------------------------------------------------------------------------


class Repo:
    """One repository's worktrees as the check needs them, with its cache."""

    def __init__(self, here: str, common: str) -> None:
        self.common = common
        self.cache = Cache(common)
        refs = Refs(common)
        records = records_of(common)
        self.trees = trees(common)
        for tree in self.trees:
            refs.resolve(tree)
            tree.record = records.get(os.path.realpath(tree.path))
        real = os.path.realpath(here)
        self.here = next((t for t in self.trees if os.path.realpath(t.path) == real), None)
        self.main = next((t for t in self.trees if t.main), None)

    def others(self) -> list[Tree]:
        return [t for t in self.trees if t is not self.here]

    def _git(self, args: list[str], input: bytes | None = None, ok: tuple[int, ...] = (0,)) -> bytes:
        from pylon.workspace import git

        return git.run(
            args, cwd=self.main.path if self.main else self.here.path if self.here else None, input=input, ok=ok
        )

    def apply_base(self, tree: Tree) -> str:
        """An owned session's base against the main checkout: its last apply in effect, else its baseline."""
        assert tree.record is not None
        baseline = str(tree.record.get("baseline") or "")
        wid = str(tree.record.get("id"))
        stamp = [
            *_stamp(os.path.join(self.common, "refs", "pylon", "ops")),
            *_stamp(os.path.join(self.common, "packed-refs")),
        ]
        table = self.cache.table("apply")
        key = f"{wid}\0{baseline}"
        kept = table.get(key)
        if kept is not None and kept[0] == stamp:
            return str(kept[1])
        from pylon.workspace.repo import locate
        from pylon.workspace.worktrees.applied import bases

        start = bases(locate(tree.path), {wid: baseline})[wid].commit
        table[key] = [stamp, start]
        self.cache.dirty = True
        return start

    def start(self, tree: Tree) -> str | None:
        if tree.record is not None:
            return self.apply_base(tree)
        return tree.head

    def base(self, one: Tree, two: Tree) -> str | None:
        """The base the two worktrees share (see the module docstring)."""
        for a, b in ((one, two), (two, one)):
            if a.main and b.record is not None:
                return self.apply_base(b)
        x, y = self.start(one), self.start(two)
        if not x or not y:
            return x or y
        if x == y:
            return x
        table = self.cache.table("mb")
        key = " ".join(sorted((x, y)))
        if key not in table:
            table[key] = self._git(["merge-base", x, y], ok=(0, 1)).decode().strip()
            self.cache.dirty = True
        return str(table[key]) or None

    def base_ids(self, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """(commit, path) -> the blob id at that path ("" when the path is not a file there)."""
        table = self.cache.table("oid")
        missing = [w for w in wanted if f"{w[0]}\0{w[1]}" not in table]
        if missing:
            request = "".join(f"{c}:{p}\n" for c, p in missing).encode("utf-8", "surrogateescape")
            out = self._git(["cat-file", "--batch-check=%(objectname) %(objecttype)"], input=request)
            for (c, p), line in zip(missing, out.decode().splitlines()):
                oid, _, kind = line.partition(" ")
                table[f"{c}\0{p}"] = oid if kind in ("blob",) else ("tree" if kind == "tree" else "")
            self.cache.dirty = True
        return {w: str(table[f"{w[0]}\0{w[1]}"]) for w in wanted}


def _content_id(tree: Tree, rel: str, cache: Cache) -> tuple[str, bytes | None]:
    """(the blob id of the worktree's file `rel` as git would store it, its bytes when read);
    "" when absent, "tree" for a folder."""
    from pylon.digest import git_blob_id

    full = os.path.join(tree.path, rel)
    try:
        st = os.lstat(full)
    except OSError:
        return "", None
    import stat

    if stat.S_ISDIR(st.st_mode):
        return "tree", None
    if stat.S_ISLNK(st.st_mode):
        target = os.fsencode(os.readlink(full))
        return git_blob_id(target), target
    if not stat.S_ISREG(st.st_mode):
        return "", None
    try:
        with open(full, "rb") as fh:
            data = fh.read()
    except OSError:
        return "", None
    return git_blob_id(data), data


def _filtered_id(tree: Tree, rel: str, data: bytes, cache: Cache, repo: Repo) -> str | None:
    """git's id of the file through its filters (eol, clean), when they may apply; None otherwise."""
    if b"\r\n" not in data and not os.path.exists(os.path.join(tree.path, ".gitattributes")):
        return None
    full = os.path.join(tree.path, rel)
    st = os.lstat(full)
    table = cache.table("hashed")
    key = f"{full}\0{st.st_mtime_ns}\0{st.st_size}\0{st.st_ino}"
    if key not in table:
        from pylon.workspace import git

        table[key] = git.run(["hash-object", "--path", rel, "--", rel], cwd=tree.path).decode().strip()
        cache.dirty = True
    return str(table[key])


def check(here: str, paths: list[str], after: dict[str, bytes | None] | None = None) -> list[Finding]:
    """What other live worktrees changed of `paths` (relative to the worktree root `here`) since
    the base they share with it. `after` maps a path to its content after the write (the merge
    then says whether the write would conflict), or to None when the write's result cannot be told
    (no merge: `conflict` stays None); a path it does not hold is merged as the file is now."""
    dirs = git_dirs(here)
    if dirs is None or not paths or len(trees(dirs[1])) < 2:  # no other worktree: a few stat calls
        return []
    repo = Repo(here, dirs[1])
    if repo.here is None or not repo.others():
        return []
    pairs = [(other, repo.base(repo.here, other)) for other in repo.others()]
    pairs = [(o, b) for o, b in pairs if b]
    ids = repo.base_ids([(b, p) for _, b in pairs for p in paths if b])
    found: list[Finding] = []
    for other, base in pairs:
        assert base is not None
        for rel in paths:
            was = ids[(base, rel)]
            now, data = _content_id(other, rel, repo.cache)
            if now == was or (now == "tree" and was == "tree"):
                continue
            if data is not None and was and _filtered_id(other, rel, data, repo.cache, repo) == was:
                continue
            finding = Finding(rel, other.who(), base)
            finding.deleted = now == ""
            found.append(finding)
            unknown = after is not None and rel in after and after[rel] is None
            _describe(repo, finding, was, data, (after or {}).get(rel), here, unknown)
    repo.cache.save()
    return found


def _describe(
    repo: Repo, finding: Finding, base_id: str, theirs: bytes | None, ours: bytes | None, here: str, unknown: bool
) -> None:
    """The other worktree's changed lines, and whether our version (the content after the write, or
    the file as it is; `unknown`: a write whose result cannot be told) merges with theirs."""
    base = b""
    if base_id and base_id != "tree":
        base = repo._git(["cat-file", "blob", base_id])
    if ours is None and not unknown:
        full = os.path.join(here, finding.path)
        try:
            with open(full, "rb") as fh:
                ours = fh.read(MAX_BYTES + 1)
        except OSError:
            ours = None
    sides = [s for s in (base, theirs, ours) if s is not None]
    if any(b"\0" in s[:8000] for s in sides) or any(len(s) > MAX_BYTES for s in sides):
        finding.binary = True
        return
    theirs_hunks = hunks(base, theirs or b"")
    finding.lines = [[j1 + 1, j2 - j1] for _i1, _i2, j1, j2 in theirs_hunks]
    if ours is None:
        return
    finding.conflict = merges_badly(base, ours, theirs or b"")
    if finding.conflict:
        finding.ours = [
            [j1 + 1, j2 - j1]
            for i1, i2, j1, j2 in hunks(base, ours)
            if any(i1 <= t2 and t1 <= i2 for t1, t2, _a, _b in theirs_hunks)
        ]


def hunks(old: bytes, new: bytes) -> list[tuple[int, int, int, int]]:
    """(i1, i2, j1, j2) of each change from `old` to `new`: lines [i1, i2) of old became [j1, j2) of new."""
    from difflib import SequenceMatcher

    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    return [
        (i1, i2, j1, j2)
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        if tag != "equal"
    ]


def merges_badly(base: bytes, ours: bytes, theirs: bytes) -> bool:
    """Whether `git merge-file` of the three versions conflicts (git's own rule of which changes meet)."""
    import tempfile

    from pylon.workspace import git

    with tempfile.TemporaryDirectory(prefix="pylon-clash-") as folder:
        names = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = os.path.join(folder, name)
            with open(path, "wb") as fh:
                fh.write(data)
            names.append(path)
        code, _out, _err = git.run_full(["merge-file", "-p", "-q", *names])
    return code > 0


# -- what to do with a finding ---------------------------------------------------------------------

MODES = ("context", "ask", "off")


def conflict_mode(root: str, env: dict[str, str] | None = None) -> tuple[str, str]:
    """(the answer to a conflicting write: context, ask or off; a problem with the settings, or
    ""): `[writes] on_conflict` of `.pylon/worktrees.toml` in the checkout, else of the user's
    `$XDG_CONFIG_HOME/pylon/worktrees.toml`; default context. A file that does not parse is
    reported and the default holds."""
    environ = os.environ if env is None else env
    config = environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    for path in (os.path.join(root, ".pylon", "worktrees.toml"), os.path.join(config, "pylon", "worktrees.toml")):
        if not os.path.isfile(path):
            continue
        import tomllib

        try:
            with open(path, "rb") as fh:
                doc = tomllib.loads(fh.read(1 << 20).decode("utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            return "context", f"{path} ignored: it is not valid TOML ({exc})"
        writes = doc.get("writes", {})
        mode = writes.get("on_conflict") if isinstance(writes, dict) else None
        if mode is None:
            continue
        if mode not in MODES:
            return "context", f"{path} ignored: [writes] on_conflict = {mode!r}; use one of {', '.join(MODES)}"
        return str(mode), ""
    return "context", ""
