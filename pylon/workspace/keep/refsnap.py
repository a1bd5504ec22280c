"""The refs of a kept state, read by pylon itself, and their reversal.

A snapshot is every ref outside `refs/pylon/` (pylon's own ledger) and `refs/stash`, this checkout's
HEAD as its file says it (`ref: refs/heads/main` or a commit), and the stash as the reflog of
`refs/stash`, line for line (each entry's commit, who and when, its message). Read from
`packed-refs` and the loose ref files without starting git; a repository that keeps its refs in a
reftable is asked through git instead.

Reversing a command's change to refs is three-way, ref by ref: a ref the command changed goes back
when it still holds what the command left (compare-and-swap in one `git update-ref --stdin`), and is
left as it is, and named, when it moved since. The stash goes back the same way, entry by entry.
"""

from __future__ import annotations

import os

from pylon.workspace import git

STASH = "refs/stash"
_SKIP = ("refs/pylon/", STASH)
_ZERO = "0" * 40

Snapshot = dict[str, object]  # {"refs": {name: value}, "head": str, "stash": [reflog lines]}


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(1 << 16).decode("utf-8", "surrogateescape").strip()
    except OSError:
        return None


def _packed(common_dir: str) -> dict[str, str]:
    found: dict[str, str] = {}
    try:
        with open(os.path.join(common_dir, "packed-refs"), "rb") as fh:
            text = fh.read().decode("utf-8", "surrogateescape")
    except OSError:
        return found
    for line in text.splitlines():
        if not line or line[0] in "#^":
            continue
        oid, _, name = line.partition(" ")
        if name:
            found[name] = oid
    return found


def _loose(common_dir: str, found: dict[str, str]) -> None:
    top = os.path.join(common_dir, "refs")
    for folder, dirs, files in os.walk(top):
        rel_folder = os.path.relpath(folder, common_dir).replace(os.sep, "/")
        if rel_folder == "refs/pylon" or rel_folder.startswith("refs/pylon/"):
            dirs[:] = []
            continue
        for name in files:
            if name.endswith(".lock"):
                continue
            value = _read(os.path.join(folder, name))
            if value:
                found[f"{rel_folder}/{name}"] = value


def snapshot(common_dir: str, git_dir: str) -> Snapshot:
    """The refs, HEAD and stash of the checkout whose git folders these are."""
    if os.path.isdir(os.path.join(common_dir, "reftable")):
        return _through_git(git_dir)
    refs = _packed(common_dir)
    _loose(common_dir, refs)
    stash = _read(os.path.join(common_dir, "logs", "refs", "stash"))
    kept = {k: v for k, v in sorted(refs.items()) if not k.startswith(_SKIP)}
    head = _read(os.path.join(git_dir, "HEAD")) or ""
    lines = stash.splitlines() if stash and refs.get(STASH) else []
    return {"refs": kept, "head": head, "stash": lines}


def _through_git(git_dir: str) -> Snapshot:
    env = {"GIT_DIR": git_dir}
    out = git.run(["for-each-ref", "--format=%(objectname) %(refname) %(symref)"], env=env).decode(
        "utf-8", "surrogateescape"
    )
    refs: dict[str, str] = {}
    for line in out.splitlines():
        oid, name, sym = (line.split(" ") + ["", ""])[:3]
        if name and not name.startswith(_SKIP):
            refs[name] = f"ref: {sym}" if sym else oid
    head_sym = git.run(["symbolic-ref", "-q", "HEAD"], env=env, ok=(0, 1)).decode().strip()
    head = f"ref: {head_sym}" if head_sym else git.run(["rev-parse", "HEAD"], env=env, ok=(0, 128)).decode().strip()
    code, log, _ = git.run_full(["reflog", "show", "--format=%H %gs", STASH, "--"], env=env)
    stash = list(reversed(log.decode("utf-8", "surrogateescape").splitlines())) if code == 0 else []
    return {"refs": refs, "head": head, "stash": stash}


def stash_oid(line: str) -> str:
    """The entry's commit in one reflog line (`old new ident when zone\\tmessage`)."""
    parts = line.split(" ", 2)
    return parts[1] if len(parts) > 2 and len(parts[1]) >= 40 else parts[0]


def changed(before: Snapshot, after: Snapshot) -> dict[str, list[str]]:
    """What differs: refs created, deleted, moved; HEAD; the stash entries added and dropped."""
    b, a = _refs(before), _refs(after)
    out: dict[str, list[str]] = {
        "created": sorted(set(a) - set(b)),
        "deleted": sorted(set(b) - set(a)),
        "moved": sorted(k for k in set(a) & set(b) if a[k] != b[k]),
        "head": [],
        "stash_added": [],
        "stash_dropped": [],
    }
    if before.get("head") != after.get("head"):
        out["head"] = [str(before.get("head")), str(after.get("head"))]
    sb = [stash_oid(x) for x in _stash(before)]
    sa = [stash_oid(x) for x in _stash(after)]
    out["stash_added"] = [o for o in sa if o not in sb]
    out["stash_dropped"] = [o for o in sb if o not in sa]
    return out


def _refs(snap: Snapshot) -> dict[str, str]:
    raw = snap.get("refs")
    return {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}


def _stash(snap: Snapshot) -> list[str]:
    raw = snap.get("stash")
    return [str(x) for x in raw] if isinstance(raw, list) else []


def commits_named(snap: Snapshot) -> list[str]:
    """The objects the snapshot's refs, HEAD and stash entries name (what must exist to put them back)."""
    found = [v for v in _refs(snap).values() if not v.startswith("ref:")]
    head = str(snap.get("head") or "")
    if head and not head.startswith("ref:"):
        found.append(head)
    found += [stash_oid(x) for x in _stash(snap)]
    return [o for o in dict.fromkeys(found) if len(o) >= 40]


class Reversal:
    """What reversing a change of refs did: put back, and left because it moved since."""

    __slots__ = ("back", "left", "stash_back", "stash_left")  # stash_left: entries the command made, removed

    def __init__(self) -> None:
        self.back: list[str] = []
        self.left: list[str] = []
        self.stash_back: list[str] = []
        self.stash_left: list[str] = []

    def to_dict(self) -> dict[str, list[str]]:
        return {
            "refs_back": self.back,
            "refs_left": self.left,
            "stash_back": self.stash_back,
            "stash_removed": self.stash_left,
        }


def reverse(root: str, common_dir: str, git_dir: str, frm: Snapshot, to: Snapshot, now: Snapshot) -> Reversal:
    """Carry the change frm -> to of refs, HEAD and the stash onto `now` (each ref on its own)."""
    done = Reversal()
    f, t, n = _refs(frm), _refs(to), _refs(now)
    lines: list[str] = []
    for name in sorted(set(f) | set(t)):
        if f.get(name) == t.get(name):
            continue
        if n.get(name) != f.get(name):
            if n.get(name) != t.get(name):
                done.left.append(name)
            continue
        want, have = t.get(name), n.get(name)
        if (want or "").startswith("ref:") or (have or "").startswith("ref:"):
            lines.append(_symref(name, want))
        elif want is None:
            lines.append(f"delete {name} {have}")
        elif have is None:
            lines.append(f"create {name} {want}")
        else:
            lines.append(f"update {name} {want} {have}")
        done.back.append(name)
    plain = [x for x in lines if not x.startswith("symref ")]
    if plain:
        git.run(
            ["update-ref", "--no-deref", "--stdin"],
            cwd=root,
            input=("\n".join(plain) + "\n").encode(),
            what="git update-ref (undo of refs)",
        )
    for line in lines:
        if line.startswith("symref "):
            _, name, target = line.split(" ", 2)
            if target == "-":
                git.run(["symbolic-ref", "--delete", name], cwd=root, ok=(0, 1))
            else:
                git.run(["symbolic-ref", name, target], cwd=root)
    _head(root, git_dir, frm, to, now, done)
    _stash_back(root, common_dir, _stash(frm), _stash(to), _stash(now), done)
    return done


def _symref(name: str, want: str | None) -> str:
    return f"symref {name} {want[4:].strip() if want and want.startswith('ref:') else '-'}"


def _head(root: str, git_dir: str, frm: Snapshot, to: Snapshot, now: Snapshot, done: Reversal) -> None:
    f, t, n = (str(s.get("head") or "") for s in (frm, to, now))
    if f == t:
        return
    if n != f:
        if n != t:
            done.left.append("HEAD")
        return
    if t.startswith("ref:"):
        git.run(["symbolic-ref", "-m", "pylon: undo", "HEAD", t[4:].strip()], cwd=root)
    elif t:
        git.run(["update-ref", "--no-deref", "-m", "pylon: undo", "HEAD", t], cwd=root)
    done.back.append("HEAD")


def _stash_back(root: str, common_dir: str, frm: list[str], to: list[str], now: list[str], done: Reversal) -> None:
    """The stash reflog after carrying frm -> to onto now: entries the change dropped come back in
    their place, entries it added go, entries made since stay (newest last, as the reflog holds them)."""
    if frm == to or now == to:
        return
    ids = {stash_oid(x) for x in to}
    added = [x for x in frm if stash_oid(x) not in ids]  # the change made them (frm holds them, to does not)
    dropped = [x for x in to if stash_oid(x) not in {stash_oid(y) for y in frm}]
    if now == frm:
        target = list(to)
    else:
        have = {stash_oid(x) for x in now}
        target = [x for x in to if stash_oid(x) in have or x in dropped]
        target += [x for x in now if stash_oid(x) not in ids and x not in added]
    if target == now:
        return
    done.stash_back = [stash_oid(x) for x in dropped]
    done.stash_left = [stash_oid(x) for x in added if x in now]  # made by the command: taken away again
    _write_stash(root, common_dir, target, now)


def _write_stash(root: str, common_dir: str, lines: list[str], now: list[str]) -> None:
    """refs/stash at the newest entry and its reflog exactly `lines` (git appends an entry of its own
    when it moves the ref: the file is written after)."""
    log = os.path.join(common_dir, "logs", "refs", "stash")
    current = stash_oid(now[-1]) if now else None
    if not lines:
        if current:
            git.run(["update-ref", "-d", STASH, current], cwd=root)
        try:
            os.unlink(log)
        except FileNotFoundError:
            pass
        return
    top = stash_oid(lines[-1])
    git.run(["update-ref", "--create-reflog", STASH, top, current or _ZERO], cwd=root)
    from pylon.atomic import atomic_write

    os.makedirs(os.path.dirname(log), exist_ok=True)
    atomic_write(log, ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
