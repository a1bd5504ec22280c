"""What git does not keep of a checkout, kept beside a state commit; and what nothing can keep.

git records a file as 100644 or 100755 and has no folders of its own, so a restore through git
alone gives a 600 secret back as 644 and drops empty folders. A capture made for an op (an
"exact" capture, see state.capture) therefore also lists

- the permission bits of every file of the state whose bits are not 644 or 755, and
- the empty folders that no ignore rule covers,

and the state commit carries that list in one message line, `pylon-meta: <base64 of zlib of
JSON {"m": {"600": [paths]}, "d": [folders]}>`. The line is metadata: the tree stays exactly the
working tree, and a state commit without the line (older ones, and states made from trees alone)
restores as before. restore() applies it (apply_meta): the files it writes get their recorded bits
(644/755 when none is recorded), files whose bits alone differ are chmod-ed, recorded folders
are made and empty folders the target does not hold are removed.

The scan is one `find` process run beside the capture's `git status`. It also reports what no
state can hold: FIFOs, sockets and devices, and nested repositories (a `.git` folder below the
root, whose objects are not in this repository); ops that would destroy those refuse first.
"""

from __future__ import annotations

import os

from pylon.workspace import git

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

    Meta = dict[str, object]

_FIND = [
    "find", ".", "(", "-name", ".git", "-type", "d", "-printf", "g\t%h\\0", "-prune", ")",
    "-o", "(", "-name", ".git", "-prune", ")",
    "-o", "(", "-type", "d", "-empty", "-printf", "d\t%P\\0", ")",
    "-o", "(", "-type", "f", "!", "-perm", "644", "!", "-perm", "755", "-printf", "f\t%m\t%P\\0", ")",
    "-o", "(", "(", "-type", "p", "-o", "-type", "s", "-o", "-type", "b", "-o", "-type", "c", ")",
    "-printf", "s\t%P\\0", ")",
]


class Scan:
    """One walk of a checkout: odd permission bits, empty folders, special files, nested repositories."""

    __slots__ = ("modes", "dirs", "special", "nested")

    def __init__(self) -> None:
        self.modes: dict[str, int] = {}
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
        keep.dirs = [d for d in self.dirs if inside(d)]
        keep.special = [s for s in self.special if inside(s)]
        keep.nested = [n for n in self.nested if inside(n)]
        return keep


def start(root: str) -> subprocess.Popen[bytes]:
    import subprocess

    return subprocess.Popen(_FIND, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, close_fds=True)


def finish(proc: subprocess.Popen[bytes]) -> Scan:
    out, _ = proc.communicate()
    found = Scan()
    for rec in out.split(b"\0"):
        if not rec:
            continue
        kind, _, rest = rec.partition(b"\t")
        if kind == b"f":
            mode, _, rel = rest.partition(b"\t")
            found.modes[os.fsdecode(rel)] = int(mode, 8)
        elif kind == b"d" and rest:
            found.dirs.append(os.fsdecode(rest))
        elif kind == b"s":
            found.special.append(os.fsdecode(rest))
        elif kind == b"g" and rest not in (b".", b""):
            found.nested.append(os.fsdecode(rest[2:] if rest.startswith(b"./") else rest))
    return found


def scan(root: str) -> Scan:
    return finish(start(root))


def meta_for(root: str, tree: str, found: Scan) -> Meta:
    """The meta of a state whose tree is `tree`: the odd bits of its files, its unignored empty folders."""
    modes: dict[str, list[str]] = {}
    names = [p for p in sorted(found.modes) if "\n" not in p]
    if names:
        query = "".join(f"{tree}:{p}\n" for p in names).encode("utf-8", "surrogateescape")
        out = git.run(["cat-file", "--batch-check=%(objecttype)"], cwd=root, input=query).decode().split("\n")
        for rel, kind in zip(names, out):
            if kind == "blob":
                modes.setdefault(format(found.modes[rel] & 0o7777, "o"), []).append(rel)
    dirs = sorted(found.dirs)
    if dirs:
        data = "".join(d + "\0" for d in dirs).encode("utf-8", "surrogateescape")
        out2 = git.run(["check-ignore", "--no-index", "-z", "--stdin"], cwd=root, input=data, ok=(0, 1))
        ignored = {p.decode("utf-8", "surrogateescape") for p in out2.split(b"\0") if p}
        dirs = [d for d in dirs if d not in ignored]
    return {"m": modes, "d": dirs}


def encode(meta: Meta) -> str:
    import base64
    import json
    import zlib

    raw = json.dumps(meta, sort_keys=True, separators=(",", ":")).encode("ascii")  # \\u escapes: any file name
    return base64.b64encode(zlib.compress(raw, 6)).decode("ascii")


def decode(text: str) -> Meta | None:
    import base64
    import binascii
    import json
    import zlib

    try:
        value = json.loads(zlib.decompress(base64.b64decode(text.strip())).decode("ascii"))
    except (ValueError, binascii.Error, zlib.error, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def with_modes(root: str, meta_raw: str, files: list[str]) -> str:
    """An encoded meta with the odd permission bits of `files` (regular files, as they are now) added."""
    import stat

    meta = decode(meta_raw) or {"m": {}, "d": []}
    modes = meta.setdefault("m", {})
    assert isinstance(modes, dict)
    for rel in files:
        try:
            st = os.lstat(os.path.join(root, rel))
        except OSError:
            continue
        bits = stat.S_IMODE(st.st_mode)
        if stat.S_ISREG(st.st_mode) and bits not in (0o644, 0o755):
            modes.setdefault(format(bits, "o"), []).append(rel)
    return encode(meta)


def modes_of(meta: Meta | None) -> dict[str, int]:
    """path -> permission bits, from a decoded meta."""
    found: dict[str, int] = {}
    raw = (meta or {}).get("m")
    if isinstance(raw, dict):
        for mode, paths in raw.items():
            for rel in paths if isinstance(paths, list) else []:
                found[str(rel)] = int(mode, 8)
    return found


def dirs_of(meta: Meta | None) -> list[str]:
    raw = (meta or {}).get("d")
    return [str(d) for d in raw] if isinstance(raw, list) else []


def _inside(rel: str, paths: list[str] | None) -> bool:
    return paths is None or any(rel == p or rel.startswith(p + "/") for p in paths)


def bits_before(root: str, writes: list[tuple[str, str, str]], replaced: set[str]) -> dict[str, int]:
    """The permission bits of the files a restore is about to overwrite (a target with no meta
    keeps them where git's mode agrees)."""
    import stat

    found: dict[str, int] = {}
    for mode, _oid, rel in writes:
        if rel in replaced and mode in ("100644", "100755"):
            try:
                st = os.lstat(os.path.join(root, rel))
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                found[rel] = stat.S_IMODE(st.st_mode)
    return found


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def settle(root: str, target: Meta | None, current: Meta | None, writes: list[tuple[str, str, str]],
           before: dict[str, int], skip: set[str], paths: list[str] | None) -> None:
    """After a restore's writes: the permission bits and empty folders the target recorded."""
    from pylon.workspace.restore_fs import make_dirs, remove_empty_dirs, set_modes

    wanted: dict[str, int] = {}
    if target is None:  # an older state: keep a rewritten file's bits where git's mode agrees
        for mode, _oid, rel in writes:
            if rel in before and (before[rel] & 0o100 != 0) == (mode == "100755"):
                wanted[rel] = before[rel]
        set_modes(root, wanted)
        return
    recorded = modes_of(target)
    mask = _umask()
    written = set()
    for mode, _oid, rel in writes:
        written.add(rel)
        if mode in ("100644", "100755"):
            default = 0o755 if mode == "100755" else 0o644
            bits = recorded.get(rel, default)
            if bits != default & ~mask:  # what git's checkout wrote
                wanted[rel] = bits
    for rel in set(recorded) | set(modes_of(current)):
        if rel not in written and rel not in skip and _inside(rel, paths):
            wanted[rel] = recorded.get(rel, -1)
    set_modes(root, wanted)
    dirs = [d for d in dirs_of(target) if _inside(d, paths)]
    make_dirs(root, dirs)
    if current is not None:
        keep = set(dirs)
        remove_empty_dirs(root, [d for d in dirs_of(current) if d not in keep and _inside(d, paths)], keep)
