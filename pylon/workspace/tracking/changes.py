"""`pylon ws changes`: what changed since a baseline, as a bounded path list with line counts.

Both sides are trees (the baseline's working tree and the current one), so the listing is a
`git diff-tree` of two trees: names first (`--raw`, no file contents read), then `--numstat` for
the shown entries only, so the cost follows the limit, not the size of the change.
"""

from __future__ import annotations

import os

from pylon.atomic import replace_unsynced
from pylon.workspace import git
from pylon.workspace.current import current_state
from pylon.workspace.index import settings_sig
from pylon.workspace.repo import Checkout
from pylon.workspace.since import Since, resolve

STATUS = {"A": "added", "D": "deleted", "M": "modified", "T": "type"}
LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}


def tree_env(checkout: Checkout) -> dict[str, str]:
    """For tree-to-tree git commands: literal pathspecs, and an index that does not exist.

    `git diff-tree` run inside a checkout reads the index although it compares two trees; on an
    80,000-file checkout that is 10 ms of a 50 ms budget. Pointing GIT_INDEX_FILE at a missing
    file makes that read free (attributes still come from the working tree).
    """
    return {"GIT_LITERAL_PATHSPECS": "1", "GIT_INDEX_FILE": os.path.join(checkout.git_dir, "pylon", "no-index")}


class Entry:
    __slots__ = ("path", "status", "old_mode", "new_mode", "old_oid", "new_oid", "additions", "deletions", "binary")

    def __init__(self, path: str, status: str, old_mode: str, new_mode: str, old_oid: str, new_oid: str) -> None:
        self.path = path
        self.status = status
        self.old_mode = old_mode
        self.new_mode = new_mode
        self.old_oid = old_oid
        self.new_oid = new_oid
        self.additions: int | None = None
        self.deletions: int | None = None
        self.binary = False

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "path": self.path,
            "status": self.status,
            "additions": self.additions,
            "deletions": self.deletions,
            "binary": self.binary,
        }
        if self.old_mode != self.new_mode and self.status in ("mode", "modified", "type"):
            out["old_mode"], out["new_mode"] = self.old_mode, self.new_mode
        return out


def _entry(meta: bytes, raw_path: bytes) -> Entry:
    old_mode, new_mode, old_oid, new_oid, letter = meta[1:].decode().split(" ")[:5]
    status = STATUS.get(letter[:1], "modified")
    if status == "modified" and old_oid == new_oid and old_mode != new_mode:
        status = "mode"
    return Entry(raw_path.decode("utf-8", "surrogateescape"), status, old_mode, new_mode, old_oid, new_oid)


def raw_entries(checkout: Checkout, old: str, new: str, paths: list[str] | None = None) -> list[Entry]:
    """All changed paths between two trees, without reading any file content."""
    args = ["diff-tree", "-r", "-z", "--raw", "--no-renames", "--abbrev=40", old, new]
    if paths:
        args += ["--", *paths]
    out = git.run(args, cwd=checkout.root, env=tree_env(checkout))
    items = out.split(b"\0")
    entries: list[Entry] = []
    i = 0
    while i + 1 < len(items):
        if not items[i].startswith(b":"):
            i += 1
            continue
        entries.append(_entry(items[i], items[i + 1]))
        i += 2
    return entries


def _apply_numstat(records: list[bytes], by_path: dict[str, Entry]) -> None:
    for record in records:
        parts = record.split(b"\t", 2)
        if len(parts) != 3:
            continue
        entry = by_path.get(parts[2].decode("utf-8", "surrogateescape"))
        if entry is None:
            continue
        if parts[0] == b"-":
            entry.binary = True
            entry.additions = entry.deletions = None
        else:
            entry.additions, entry.deletions = int(parts[0]), int(parts[1])
    for entry in by_path.values():
        if entry.additions is None and not entry.binary:
            entry.additions = entry.deletions = 0  # mode-only changes have no numstat lines


_MEMO = "changes-memo"
_MEMO_MAX = 1 << 20


def _memo_key(checkout: Checkout, old: str, new: str) -> bytes:
    """Two trees are immutable, so their diff is a pure function of them and of what shapes git's
    diff outside them: attribute files and config (diff drivers, binary attributes)."""
    return f"pylon-changes-3 {old} {new} {settings_sig(checkout, 'attributes', 'attributes')}\n".encode()


def _memo_read(checkout: Checkout, key: bytes) -> tuple[int, bytes] | None:
    """(total, token stream) of a memoised listing of these two trees, or None."""
    try:
        with open(os.path.join(checkout.git_dir, "pylon", _MEMO), "rb") as fh:
            data = fh.read(_MEMO_MAX + len(key) + 32)
    except OSError:
        return None
    if not data.startswith(key):
        return None
    total, _, stream = data[len(key) :].partition(b"\n")
    return (int(total), stream) if total.isdigit() else None


def _memo_write(checkout: Checkout, key: bytes, total: int, stream: bytes) -> None:
    if len(stream) > _MEMO_MAX:
        return
    try:
        replace_unsynced(os.path.join(checkout.git_dir, "pylon", _MEMO), key + b"%d\n" % total + stream)
    except OSError:
        pass  # a memo is only an optimisation


class _Tokens:
    """Parses a `diff-tree -z --raw --numstat` token stream: entries first, then numstat records."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.raw: list[bytes] = []  # the raw tokens of the entries, to memoise a cut listing
        self.numstat: list[bytes] = []
        self.meta: bytes | None = None  # the raw record waiting for its path

    def take(self, tokens: list[bytes]) -> None:
        for token in tokens:
            if self.meta is not None:
                self.entries.append(_entry(self.meta, token))
                self.raw += [self.meta, token]
                self.meta = None
            elif token.startswith(b":"):
                self.meta = token
            elif token:
                self.numstat.append(token)


def count_changed(checkout: Checkout, old: str, new: str) -> int:
    """How many paths differ between two trees: a names-only listing, only counted (no parsing)."""
    return _finish_count(_start_count(checkout, old, new))


def _start_count(checkout: Checkout, old: str, new: str) -> git.GitProcess:
    args = ["diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new]
    return git.GitProcess(args, cwd=checkout.root, env=tree_env(checkout))


def _finish_count(proc: git.GitProcess) -> int:
    count = 0
    while True:
        data = proc.read_stdout()
        if not data:
            break
        count += data.count(b"\0")  # `-z --name-only`: one NUL after each path, nothing else
    code, err = proc.finish()
    if code != 0:
        raise git.failure(["diff-tree", "--name-only"], code, err, "git diff-tree")
    return count


def listed(checkout: Checkout, old: str, new: str, limit: int) -> tuple[int, list[Entry]]:
    """(the exact number of changed paths, the first `limit` entries with line counts).

    `--raw --numstat` prints every name first, then the counts, but git computes every count
    before it prints the first one and holds the tail of the names in its output buffer meanwhile.
    So a listing that outnumbers the limit is stopped at limit+1 names (a 50,000-path change costs
    a listing, not 50,000 diffs), and the exact total comes from a names-only listing of the same
    two trees started alongside it, which only counts separators. The shown entries are then
    counted by one more process restricted to their paths. When the last listing was cut (an
    agent asking again about a big change, or the first listing after the base moved from under
    one), or there was none yet, the first process is skipped: see _cut_listing. A result is memoised
    under the git dir (one slot): asking again about the same two trees starts no git.
    """
    key = _memo_key(checkout, old, new)
    memo = _memo_read(checkout, key)
    if memo is not None:
        total, stream = memo
        parsed = _Tokens()
        parsed.take(stream.split(b"\0"))
        if len(parsed.entries) == total or limit <= len(parsed.entries):
            shown = parsed.entries[:limit]
            _apply_numstat(parsed.numstat, {e.path: e for e in shown})
            return total, shown
    last = _hint_file(checkout)
    if last is None or last[1] > limit:
        # A cut is expected: the last listing (from this tree, or from the previous base when the
        # base just moved, or none yet) outnumbered the limit. One full tree diff, not two; a
        # small change costs one more short process (see bench/ws_counts.py, docs/benchmarks.md).
        total, shown, stream = _cut_listing(checkout, old, new, limit)
        _memo_write(checkout, key, total, stream)
        _hint_write(checkout, old, total)
        return total, shown
    proc = git.GitProcess(
        ["diff-tree", "-r", "-z", "--raw", "--numstat", "--no-renames", "--abbrev=40", old, new],
        cwd=checkout.root,
        env=tree_env(checkout),
    )
    counter = _start_count(checkout, old, new)
    parsed = _Tokens()
    chunks: list[bytes] = []
    size = 0
    pending = b""
    stopped = False
    while True:
        data = proc.read_stdout()
        if not data:
            break
        if size <= _MEMO_MAX:
            chunks.append(data)
        size += len(data)
        tokens = (pending + data).split(b"\0")
        pending = tokens.pop()
        parsed.take(tokens)
        if not parsed.numstat and len(parsed.entries) > limit:
            proc.kill()
            stopped = True
            break
    code, err = proc.finish()
    if code != 0 and not stopped:
        counter.kill()
        counter.finish()
        raise git.failure(["diff-tree"], code, err, "git diff-tree")
    if not stopped:
        counter.kill()  # the complete listing is its own count
        counter.finish()
        shown = parsed.entries[:limit]
        _apply_numstat(parsed.numstat, {e.path: e for e in shown})
        if size <= _MEMO_MAX:
            _memo_write(checkout, key, len(parsed.entries), b"".join(chunks))
        _hint_write(checkout, old, len(parsed.entries))
        return len(parsed.entries), shown
    shown = parsed.entries[:limit]
    numstat = _start_numstat(checkout, old, new, shown)
    total = _finish_count(counter)
    records = git.finish_run(numstat)
    _apply_numstat(records.split(b"\0"), {e.path: e for e in shown})
    _memo_write(checkout, key, total, b"\0".join(parsed.raw[: 2 * limit]) + b"\0" + records)
    _hint_write(checkout, old, total)
    return total, shown


_HINT = "changes-hint"


def _hint_file(checkout: Checkout) -> tuple[str, int] | None:
    """(old tree, number of paths) of the last listing in this checkout, or None."""
    try:
        with open(os.path.join(checkout.git_dir, "pylon", _HINT), "rb") as fh:
            tree, _, total = fh.read(128).decode("ascii", "replace").partition(" ")
    except OSError:
        return None
    return (tree, int(total)) if total.isdigit() else None


def _hint_read(checkout: Checkout, old: str) -> int:
    """How many paths the last listing from `old` had (0 when it was from another tree)."""
    last = _hint_file(checkout)
    return last[1] if last is not None and last[0] == old else 0


def _hint_write(checkout: Checkout, old: str, total: int) -> None:
    if _hint_file(checkout) != (old, total):
        try:
            replace_unsynced(os.path.join(checkout.git_dir, "pylon", _HINT), f"{old} {total}".encode())
        except OSError:
            pass  # only a hint


def _cut_listing(checkout: Checkout, old: str, new: str, limit: int) -> tuple[int, list[Entry], bytes]:
    """A listing expected to be cut, with one full tree diff: the names-only listing is both the
    count and the first `limit` names, and as soon as it has limit+1 of them one `--raw --numstat`
    restricted to those names runs alongside the rest of the count. Returns the memo stream too."""
    counter = _start_count(checkout, old, new)
    names: list[bytes] = []
    total = 0
    pending = b""
    detail: git.GitProcess | None = None
    while True:
        data = counter.read_stdout()
        if not data:
            break
        total += data.count(b"\0")
        if detail is None:
            tokens = (pending + data).split(b"\0")
            pending = tokens.pop()
            names += tokens[: limit + 1 - len(names)]
            if len(names) > limit:
                detail = _start_detail(checkout, old, new, names[:limit])
    code, err = counter.finish()
    if code != 0:
        raise git.failure(["diff-tree", "--name-only"], code, err, "git diff-tree")
    if detail is None:  # it fit after all: the whole listing, as the usual path would have run it
        detail = _start_detail(checkout, old, new, None)
    out = git.finish_run(detail)
    parsed = _Tokens()
    parsed.take(out.split(b"\0"))
    # a literal pathspec `a` also matches `a/x` (a file replaced by a folder): keep the named ones
    wanted = {n.decode("utf-8", "surrogateescape") for n in names[:limit]}
    keep = [i for i, e in enumerate(parsed.entries) if e.path in wanted][:limit]
    shown = [parsed.entries[i] for i in keep]
    _apply_numstat(parsed.numstat, {e.path: e for e in shown})
    if len(keep) == len(parsed.entries):
        return total, shown, out
    raw = [token for i in keep for token in parsed.raw[2 * i : 2 * i + 2]]
    return total, shown, b"\0".join(raw + parsed.numstat) + b"\0"


def _start_detail(checkout: Checkout, old: str, new: str, names: list[bytes] | None) -> git.GitProcess:
    args = ["diff-tree", "-r", "-z", "--raw", "--numstat", "--no-renames", "--abbrev=40", old, new]
    if names is not None:
        args += ["--", *[n.decode("utf-8", "surrogateescape") for n in names]]
    return git.GitProcess(args, cwd=checkout.root, env=tree_env(checkout))


def _start_numstat(checkout: Checkout, old: str, new: str, entries: list[Entry]) -> git.GitProcess:
    args = ["diff-tree", "-r", "-z", "--numstat", "--no-renames", old, new, "--", *[e.path for e in entries]]
    return git.GitProcess(args, cwd=checkout.root, env=tree_env(checkout))


def changes(checkout: Checkout, since: str | None = None, limit: int = 200) -> dict[str, object]:
    base = resolve(checkout, since)
    state, source = current_state(checkout)
    return changes_between(checkout, base, state.worktree, limit=limit, source=source, notes=state.notes)


def changes_between(
    checkout: Checkout, base: Since, tree: str, *, limit: int, source: str, notes: list[dict[str, str]]
) -> dict[str, object]:
    total, shown = listed(checkout, base.tree, tree, limit)
    return {
        "since": base.to_dict(),
        "worktree_tree": tree,
        "root": checkout.root,
        "files": [e.to_dict() for e in shown],
        "total": total,
        "truncated": len(shown) < total,
        "left_out": total - len(shown),
        "source": source,
        "notes": notes,
    }
