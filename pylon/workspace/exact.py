"""What git does not keep of a checkout: permission bits other than 644/755 and empty folders;
and what nothing can keep. docs/explanation/workspace.md ("Exact restores") has the decision.

Every state commit pylon writes from a capture carries one message line,
`pylon-meta: <base64 of zlib of JSON {"m": {"600": [paths]}, "d": [folders], "s": [scope]}>`
(`s`: the folders walked, absent for the whole checkout): the odd bits of the state's own files and
its unignored empty folders. The tree stays exactly the working tree; a state commit without the
line (older ones) restores as before. restore() applies it (`settle`). Where it comes from:

- every capture (op captures, the quick `ws baseline`): exact_quick.py keeps it current from what
  the capture's own `git status` saw, without a walk;
- where whole folders go (`rm --force`, a guarded removal) and for named baselines: one `find`
  (`scan`) walks what is concerned;
- a state built from others (an undo merged with later work: reverse.carried_meta; a guard undo).

Every restore also remembers (`remember`, before its first change) the odd bits of each file it
replaces or deletes, keyed by blob and path, in `<common dir>/pylon/modes`, for targets that record
nothing (`recall`); a restore never removes a folder that was empty before it unless the target's
record says so.

The walk also reports what no state can hold: FIFOs, sockets and devices, and nested
repositories (a `.git` folder below the root, whose objects are not in this repository); the
ops that would destroy those refuse first.
"""

from __future__ import annotations

import os

from pylon.workspace import git

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable

    Meta = dict[str, object]

_TESTS = [
    "(",
    "-name",
    ".git",
    "-type",
    "d",
    "-printf",
    "g\t%h\\0",
    "-prune",
    ")",
    "-o",
    "(",
    "-name",
    ".git",
    "-prune",
    ")",
    # a folder's own bits when not 755 (then on to the tests below: it may be empty too)
    "-o",
    "(",
    "-type",
    "d",
    "!",
    "-perm",
    "755",
    "-printf",
    "D\t%m\t%p\\0",
    "-false",
    ")",
    "-o",
    "(",
    "-type",
    "d",
    "-empty",
    "-printf",
    "d\t%p\\0",
    ")",
    "-o",
    "(",
    "-type",
    "f",
    "!",
    "-perm",
    "644",
    "!",
    "-perm",
    "755",
    "-printf",
    "f\t%m\t%p\\0",
    ")",
    "-o",
    "(",
    "(",
    "-type",
    "p",
    "-o",
    "-type",
    "s",
    "-o",
    "-type",
    "b",
    "-o",
    "-type",
    "c",
    ")",
    "-printf",
    "s\t%p\\0",
    ")",
]


class Scan:
    """One walk of a checkout: odd permission bits, empty folders, special files, nested repositories."""

    __slots__ = ("modes", "dirs", "special", "nested", "recent", "dir_modes")

    def __init__(self) -> None:
        self.recent: list[str] = []  # files whose ctime is `recent` or later (start())
        self.modes: dict[str, int] = {}
        self.dir_modes: dict[str, int] = {}  # folders whose bits are not 755
        self.dirs: list[str] = []
        self.special: list[str] = []
        self.nested: list[str] = []

    def under(self, paths: list[str]) -> Scan:
        """The part of the scan at or below any of `paths` (root-relative)."""
        keep = Scan()
        prefixes = [p.strip("/") for p in paths]

        def inside(rel: str) -> bool:
            return any(not p or p == "." or rel == p or rel.startswith(p + "/") for p in prefixes)

        keep.modes = {k: v for k, v in self.modes.items() if inside(k)}
        keep.dir_modes = {k: v for k, v in self.dir_modes.items() if inside(k)}
        keep.dirs = [d for d in self.dirs if inside(d)]
        keep.special = [s for s in self.special if inside(s)]
        keep.nested = [n for n in self.nested if inside(n)]
        return keep


def start(root: str, paths: list[str] | None = None, recent: int | None = None) -> subprocess.Popen[bytes]:
    """`find` over the checkout, or over `paths` (root-relative; missing ones are skipped); with
    `recent` (a Unix time) it also lists the files whose ctime is that second or later."""
    import subprocess

    tops = (
        ["."]
        if paths is None or "." in paths or "" in paths
        else ["./" + p.strip("/") for p in dict.fromkeys(paths) if os.path.lexists(os.path.join(root, p))]
    )
    extra = [] if recent is None else [",", "-type", "f", "-newerct", f"@{recent - 1}", "-printf", "r\t%p\\0"]
    return subprocess.Popen(
        ["find", *(tops or ["/nonexistent-pylon"]), *_TESTS, *extra],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        close_fds=True,
    )


def _rel(raw: bytes) -> str:
    raw = raw[2:] if raw.startswith(b"./") else raw
    return os.fsdecode(raw)


def finish(proc: subprocess.Popen[bytes]) -> Scan:
    out, _ = proc.communicate()
    found = Scan()
    for rec in out.split(b"\0"):
        if not rec:
            continue
        kind, _, rest = rec.partition(b"\t")
        if kind == b"f":
            mode, _, rel = rest.partition(b"\t")
            found.modes[_rel(rel)] = int(mode, 8)
        elif kind == b"d" and rest not in (b".", b""):
            found.dirs.append(_rel(rest))
        elif kind == b"D":
            mode, _, rel = rest.partition(b"\t")
            if rel not in (b".", b""):
                found.dir_modes[_rel(rel)] = int(mode, 8)
        elif kind == b"s":
            found.special.append(_rel(rest))
        elif kind == b"g" and rest not in (b".", b""):
            found.nested.append(_rel(rest))
        elif kind == b"r":
            found.recent.append(_rel(rest))
    found.dirs = list(dict.fromkeys(found.dirs))
    return found


def scan(root: str, paths: list[str] | None = None) -> Scan:
    return finish(start(root, paths))


def meta_for(root: str, tree: str, found: Scan, scope: list[str] | None = None) -> Meta:
    """The meta of a state whose tree is `tree`: the odd bits of its files, its unignored empty
    folders; `scope`: the folders the walk covered, when not the whole checkout."""
    modes = {rel: found.modes[rel] for rel in in_tree(root, tree, sorted(found.modes))}
    dirs = unignored(root, sorted(found.dirs))
    meta = grouped(modes, dirs, state_dirs(root, tree, found.dir_modes, dirs))
    if scope is not None:
        meta["s"] = scope
    return meta


def in_tree(root: str, tree: str, paths: list[str], kind: str = "blob") -> list[str]:
    """Those of `paths` that are files (blobs) of `tree` (folders with `kind="tree"`)."""
    names = [p for p in paths if git.line_safe(p)]
    if not names:
        return []
    query = "".join(f"{tree}:{p}\n" for p in names).encode("utf-8", "surrogateescape")
    # a missing name comes back in the answer, as its bytes (not always UTF-8)
    out = (
        git.run(["cat-file", "--batch-check=%(objecttype)"], cwd=root, input=query).decode(errors="replace").split("\n")
    )
    return [rel for rel, found in zip(names, out) if found == kind]


def git_modes(root: str, tree: str, paths: list[str]) -> dict[str, str]:
    """git's mode (100644 or 100755) of each of `paths` that is a regular file of `tree`."""
    if not paths:
        return {}
    many = len(paths) > 500  # the whole listing, not a command line that could grow too long
    out = git.run(
        ["ls-tree", "-z", "--full-tree", *(["-r", tree] if many else [tree, "--", *paths])],
        cwd=root,
        env={"GIT_LITERAL_PATHSPECS": "1"},
    )
    wanted = set(paths)
    found: dict[str, str] = {}
    for record in out.split(b"\0"):
        info, _, raw = record.partition(b"\t")
        mode = info.split(b" ")[0].decode() if info else ""
        path = raw.decode("utf-8", "surrogateescape")
        if mode in ("100644", "100755") and path in wanted:
            found[path] = mode
    return found


def agrees(bits: int, mode: str) -> bool:
    """Do recorded bits agree with git's mode (the owner's x bit is git's to decide)?"""
    return (bits & 0o100 != 0) == (mode == "100755")


def free_dirs(root: str, tree: str, dirs: list[str]) -> list[str]:
    """Those empty folders that `tree` leaves room for: nothing at that path in it, and no file
    above it (a folder a state records as empty that its tree fills, or where its tree has a file,
    is not one of its empty folders)."""
    ask = sorted({a for d in dirs if git.line_safe(d) for a in [d, *_leading(d)]})
    if not ask:
        return list(dirs)
    query = "".join(f"{tree}:{p}\n" for p in ask).encode("utf-8", "surrogateescape")
    out = (
        git.run(["cat-file", "--batch-check=%(objecttype)"], cwd=root, input=query).decode(errors="replace").split("\n")
    )
    kind = dict(zip(ask, out))
    return [
        d
        for d in dirs
        if git.line_safe(d)
        and kind.get(d, "").endswith("missing")
        and all(kind.get(a) in ("tree",) or kind.get(a, "").endswith("missing") for a in _leading(d))
    ]


def _leading(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def state_dirs(root: str, tree: str, bits: dict[str, int], empty: list[str]) -> dict[str, int]:
    """Those folder bits that belong to the state: folders of its tree, and its empty folders."""
    odd = {rel: b for rel, b in bits.items() if b & 0o7777 != 0o755}
    if not odd:
        return {}
    keep = set(empty) | set(in_tree(root, tree, sorted(set(odd) - set(empty)), "tree"))
    return {rel: b for rel, b in odd.items() if rel in keep}


def grouped(modes: dict[str, int], dirs: list[str], dir_modes: dict[str, int] | None = None) -> Meta:
    """The meta of those bits (path -> bits), empty folders and folder bits other than 755 (`dm`:
    a record without it is older and says nothing of folders)."""
    return {"m": _by_bits(modes), "d": dirs, "dm": _by_bits(dir_modes or {})}


def _by_bits(modes: dict[str, int]) -> dict[str, list[str]]:
    by_bits: dict[str, list[str]] = {}
    for rel in sorted(modes):
        by_bits.setdefault(format(modes[rel] & 0o7777, "o"), []).append(rel)
    return by_bits


def unignored(root: str, dirs: list[str]) -> list[str]:
    """The folders no ignore rule covers (`git check-ignore --no-index`)."""
    if not dirs:
        return dirs
    data = "".join(d + "\0" for d in dirs).encode("utf-8", "surrogateescape")
    out = git.run(["check-ignore", "--no-index", "-z", "--stdin"], cwd=root, input=data, ok=(0, 1))
    ignored = {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}
    return [d for d in dirs if d not in ignored]


def encode(meta: Meta) -> str:
    import binascii  # base64's own codec, without base64 (which imports re)
    import zlib

    from pylon.agents.jsonio import dumps

    raw = dumps(meta, ascii=True, sort_keys=True, compact=True).encode("ascii")  # \\u escapes: any file name
    return binascii.b2a_base64(zlib.compress(raw, 6), newline=False).decode("ascii")


def decode(text: str) -> Meta | None:
    import binascii
    import zlib

    from pylon.agents.jsonio import loads

    try:
        value = loads(zlib.decompress(binascii.a2b_base64(text.strip())).decode("ascii"))
    except (ValueError, binascii.Error, zlib.error, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def with_modes(root: str, meta_raw: str, files: list[str]) -> str:
    """An encoded meta with the odd permission bits of `files` (regular files, as they are now) added."""
    meta = decode(meta_raw) or {"m": {}, "d": []}
    modes = meta.setdefault("m", {})
    assert isinstance(modes, dict)
    for rel, bits in file_bits(root, files, odd=True).items():
        modes.setdefault(format(bits, "o"), []).append(rel)
    return encode(meta)


def file_bits(root: str, paths: list[str], *, odd: bool, folders: bool = False) -> dict[str, int]:
    """The permission bits of those of `paths` that are regular files (with `odd`, only bits other
    than 644 and 755); with `folders`, of those that are folders (odd: other than 755)."""
    import stat

    found: dict[str, int] = {}
    usual = (0o755,) if folders else (0o644, 0o755)
    for rel in paths:
        try:
            st = os.lstat(os.path.join(root, rel))
        except OSError:
            continue
        bits = stat.S_IMODE(st.st_mode)
        if (stat.S_ISDIR(st.st_mode) if folders else stat.S_ISREG(st.st_mode)) and not (odd and bits in usual):
            found[rel] = bits
    return found


def modes_of(meta: Meta | None, key: str = "m") -> dict[str, int]:
    """path -> permission bits, from a decoded meta (its folders' with `key="dm"`)."""
    found: dict[str, int] = {}
    raw = (meta or {}).get(key)
    if isinstance(raw, dict):
        for mode, paths in raw.items():
            for rel in paths if isinstance(paths, list) else []:
                found[str(rel)] = int(mode, 8)
    return found


def dirs_of(meta: Meta | None) -> list[str]:
    raw = (meta or {}).get("d")
    return [str(d) for d in raw] if isinstance(raw, list) else []


def inside(rel: str, paths: list[str] | None) -> bool:
    """Is `rel` one of `paths` or below one (None: everything)?"""
    return paths is None or any(rel == p or rel.startswith(p + "/") for p in paths)


def bits_before(root: str, writes: list[tuple[str, str, str]], replaced: set[str]) -> dict[str, int]:
    """The permission bits of the files a restore is about to overwrite (where the target records
    none, they are kept when git's mode agrees)."""
    return file_bits(
        root, [rel for mode, _oid, rel in writes if rel in replaced and mode in ("100644", "100755")], odd=False
    )


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def differs(target: Meta | None, current: Meta | None, paths: list[str] | None) -> bool:
    """Does a restore to `target` change bits or empty folders (within `paths`) that its file
    writes do not show (a chmod alone, a folder removed)?"""
    if target is None:
        return False
    scope = scope_of(target)

    def mine(rel: str) -> bool:
        return inside(rel, paths) and (scope is None or "." in scope or inside(rel, scope))

    def part(meta: Meta | None) -> tuple[dict[str, int], set[str], dict[str, int]]:
        return (
            {k: v for k, v in modes_of(meta).items() if mine(k)},
            {d for d in dirs_of(meta) if mine(d)},
            {k: v for k, v in modes_of(meta, "dm").items() if mine(k)},
        )

    return part(target) != part(current)


def scope_of(meta: Meta | None) -> list[str] | None:
    """The folders a meta speaks for (None: the whole checkout)."""
    raw = (meta or {}).get("s")
    return [str(p) for p in raw] if isinstance(raw, list) else None


def settle(
    root: str,
    target: Meta | None,
    current: Meta | None,
    writes: list[tuple[str, str, str]],
    before: dict[str, int],
    skip: set[str],
    paths: list[str] | None,
    *,
    made: dict[str, int | None] | None = None,
) -> dict[str, int]:
    """After a restore's writes: the permission bits and empty folders the target recorded (within
    its scope); elsewhere `before` (remembered bits of that content, else the bits the file had)
    where git's mode agrees. `made`: the folders this restore made, with their remembered bits (or
    None); each gets the target's recorded bits, else those. Folders that exist keep their bits
    unless the target and the current state both record folder bits and disagree. Returns the bits
    of the empty folders it removed (for the mode memory)."""
    from pylon.workspace.restore_fs import make_dirs, remove_empty_dirs, set_dir_modes, set_modes

    scope = scope_of(target)

    def covered(rel: str) -> bool:
        return target is not None and (scope is None or "." in scope or inside(rel, scope))

    recorded = modes_of(target)
    mask = _umask()
    wanted: dict[str, int] = {}
    written = set()
    for mode, _oid, rel in writes:
        written.add(rel)
        if mode not in ("100644", "100755"):
            continue
        if covered(rel):
            default = 0o755 if mode == "100755" else 0o644
            bits = recorded.get(rel, default)
            if not agrees(bits, mode):
                bits = default  # the tree's mode decides the owner's x bit (a merged meta may carry one side's)
            if bits != default & ~mask:  # what git's checkout wrote
                wanted[rel] = bits
        elif rel in before and agrees(before[rel], mode):
            wanted[rel] = before[rel]
    if target is not None:
        for rel in set(recorded) | set(modes_of(current)):
            if rel not in written and rel not in skip and inside(rel, paths) and covered(rel):
                wanted[rel] = recorded.get(rel, -1)
    set_modes(root, wanted)
    pruned: dict[str, int] = {}
    if target is not None:
        dirs = [d for d in dirs_of(target) if inside(d, paths)]
        make_dirs(root, dirs)
        if current is not None:
            keep = set(dirs)
            gone = [d for d in dirs_of(current) if d not in keep and inside(d, paths) and covered(d)]
            remove_empty_dirs(root, gone, keep, pruned)
    set_dir_modes(root, folder_bits(target, current, made or {}, paths, covered))
    return pruned


def folder_bits(
    target: Meta | None,
    current: Meta | None,
    made: dict[str, int | None],
    paths: list[str] | None,
    covered: Callable[[str], bool],
) -> dict[str, int]:
    """The bits each folder is set to: one the restore made gets the target's recorded bits (a
    target that records folder bits and not this one: 755), else (an older target) its remembered
    bits; one that existed changes only where the target and the current state both record folder
    bits and differ."""
    knows = target is not None and "dm" in target
    recorded = modes_of(target, "dm")
    found: dict[str, int] = {}
    for rel, remembered in made.items():
        if knows and covered(rel):
            found[rel] = recorded.get(rel, 0o755)
        elif remembered is not None:
            found[rel] = remembered
    if knows and current is not None and "dm" in current:
        for rel in set(recorded) | set(modes_of(current, "dm")):
            if rel not in made and inside(rel, paths) and covered(rel):
                found[rel] = recorded.get(rel, 0o755)
    return found
