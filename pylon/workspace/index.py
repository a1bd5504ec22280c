"""The private index: where a capture stages the working tree without touching the real index.

`<git-dir>/pylon/index` starts as a byte copy of the real index (mtime kept, so git's racy-entry
check stays exact) and is kept between captures while the real index and the ignore-rule files
outside the tree are unchanged; its stat data and untracked cache then stay warm. Only this file
(and its lock) is ever written; a concurrent capture uses a throw-away copy instead of waiting.
"""

from __future__ import annotations

import fcntl
import os
import stat
import time

from pylon.atomic import replace_unsynced
from pylon.workspace import git
from pylon.workspace.nested import filter_errors, has_commit
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# git status on the private index may use (and create) the untracked cache: it is ours.
# The private index also holds files that are untracked in the real one, which git would hash
# afresh every time; trusting less stat data for them than git trusts for tracked files would miss
# a same-size edit with the mtime restored, so ctime and the full stat check are always on here.
STATUS_CONFIG = [
    "-c",
    "core.untrackedCache=true",
    "-c",
    "core.safecrlf=false",
    "-c",
    "status.showUntrackedFiles=normal",
    "-c",
    "core.trustctime=true",
    "-c",
    "core.checkStat=default",
    # where the entries end, so exact_quick.py compares them without walking every entry
    "-c",
    "index.recordEndOfIndexEntries=true",
]
BULK_PATHS = 500


def file_sig(path: str) -> list[int] | None:
    """Changes whenever the file is replaced or rewritten (git replaces its index by rename)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _config_paths(checkout: Checkout) -> list[str]:
    """The config files git reads here (system, global, repository, worktree)."""
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    paths = [
        os.environ.get("GIT_CONFIG_GLOBAL") or os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
    ]
    if not os.environ.get("GIT_CONFIG_NOSYSTEM"):
        paths.append(os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    return [*paths, os.path.join(checkout.common_dir, "config"), os.path.join(checkout.git_dir, "config.worktree")]


_OUTSIDE = "outside-files"


def configured_files(checkout: Checkout) -> dict[str, str]:
    """`core.excludesFile` / `core.attributesFile` as git resolves them (`--path`: `~` expanded).

    They can name any file, so their signatures belong in the settings signature. Asking git costs
    a process, so the answer is kept in `<git-dir>/pylon/outside-files` next to the signatures of
    the config files it came from, and asked again only when one of those changes.
    """
    config_sig = repr([file_sig(p) for p in _config_paths(checkout)])
    cache = os.path.join(checkout.git_dir, "pylon", _OUTSIDE)
    try:
        with open(cache, encoding="utf-8", errors="surrogateescape") as fh:
            lines = fh.read().split("\n")
        if lines[0] == config_sig:
            return dict(line.split("\t", 1) for line in lines[1:] if "\t" in line)
    except OSError:
        pass
    code, out, _ = git.run_full(
        ["config", "-z", "--path", "--get-regexp", r"^core\.(excludesfile|attributesfile)$"], cwd=checkout.root
    )
    found: dict[str, str] = {}
    for item in out.split(b"\0") if code == 0 else []:
        key, _, value = item.decode("utf-8", "surrogateescape").partition("\n")
        if key and value:
            found[key.lower()] = os.path.join(checkout.root, value)  # a relative value is taken from the root
    try:
        text = config_sig + "\n" + "".join(f"{k}\t{v}\n" for k, v in found.items())
        replace_unsynced(cache, text.encode("utf-8", "surrogateescape"))
    except OSError:
        pass  # only a cache
    return found


def settings_sig(checkout: Checkout, info_file: str, user_file: str) -> list[object]:
    """Signatures of the files outside the working tree that shape git's answers: `info/<info_file>`,
    the per-user `git/<user_file>` or the file config names instead (`core.excludesFile`,
    `core.attributesFile`), and every config file git reads."""
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    key = "core.excludesfile" if user_file == "ignore" else "core.attributesfile"
    paths = [
        os.path.join(checkout.common_dir, "info", info_file),
        os.path.join(xdg, "git", user_file),
        configured_files(checkout).get(key, ""),
        *_config_paths(checkout),
    ]
    return [file_sig(p) if p else None for p in paths]


def excludes_sig(checkout: Checkout) -> list[object]:
    """Ignore rules outside the working tree: info/exclude, the global ignore file, config files."""
    return settings_sig(checkout, "exclude", "ignore")


def read_json(path: str) -> dict | None:
    # through the C decoder alone: the json package pulls in re and enum, which the hooks avoid
    from pylon.agents.jsonio import loads

    try:
        with open(path, "rb") as fh:
            data = loads(fh.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: str, data: dict) -> None:
    """Private cache files: temp + rename (a reader sees the old or the new file, never half)."""
    from pylon.agents.jsonio import dumps

    replace_unsynced(path, dumps(data, ascii=True).encode("ascii"))


def copy_index(src: str, dst: str) -> list[int] | None:
    """Copy the real index to `dst` keeping its mtime; returns the signature of what was copied.

    The source is read through one descriptor, so a concurrent `git commit` replacing it (git
    writes index.lock and renames) gives us either the old or the new file, never a mix.
    """
    from pylon.workspace.leftovers import tag

    tmp = f"{dst}.tmp-{tag()}"  # its owner in its name (leftovers.py)
    try:
        src_fd = os.open(src, os.O_RDONLY)
    except FileNotFoundError:
        for stale in (dst,):
            try:
                os.unlink(stale)
            except FileNotFoundError:
                pass
        return None
    try:
        st = os.fstat(src_fd)
        dst_fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            remaining = st.st_size
            offset = 0
            while remaining > 0:
                sent = os.sendfile(dst_fd, src_fd, offset, remaining)
                if sent <= 0:
                    break
                offset += sent
                remaining -= sent
        finally:
            os.close(dst_fd)
        os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(tmp, dst)
        return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    finally:
        os.close(src_fd)


def _clear_stale_lock(lock: str) -> None:
    """The persistent private index is used only under capture.lock, which we now hold: a lock file
    still there once a git step of a killed pylon has had time to finish is left over; remove it."""
    if not git.wait_unlocked(lock):
        try:
            os.unlink(lock)
        except FileNotFoundError:
            pass


class PrivateIndex:
    """The private index used for one capture: the persistent one (locked) or a throwaway copy."""

    def __init__(self, checkout: Checkout) -> None:
        self.dir = checkout.pylon_dir()
        self.lock_fd = os.open(os.path.join(self.dir, "capture.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.persistent = True
            self.path = os.path.join(self.dir, "index")
            _clear_stale_lock(self.path + ".lock")
        except OSError:
            # Another capture holds the persistent index: use a throwaway copy instead of waiting.
            os.close(self.lock_fd)
            self.lock_fd = -1
            self.persistent = False
            from pylon.workspace.leftovers import temp_name

            self.path = os.path.join(self.dir, temp_name("index", rand=True))

    def close(self) -> None:
        if not self.persistent:
            for p in (self.path, self.path + ".lock"):
                try:
                    os.unlink(p)
                except FileNotFoundError:
                    pass
        if self.lock_fd >= 0:
            os.close(self.lock_fd)
            self.lock_fd = -1


def write_tree(checkout: Checkout, index: str) -> tuple[str | None, bool]:
    """(tree, unmerged): write-tree on a private index; None+True when it has conflicts."""
    # same config as the status that filled it, so a rewrite keeps the untracked cache
    code, out, err = git.run_full([*STATUS_CONFIG, "write-tree"], cwd=checkout.root, env={"GIT_INDEX_FILE": index})
    if code == 0:
        return out.decode().strip(), False
    text = err.decode("utf-8", "replace")
    if "unmerged" in text or "error building trees" in text:
        return None, True
    raise git.failure(["write-tree"], code, err, "writing a tree of the checkout")


class Staged:
    """What staging found besides the paths: embedded repositories and failed clean filters."""

    __slots__ = ("paths", "window", "embedded", "empty", "filter_errors", "dropped")

    def __init__(
        self,
        paths: list[bytes],
        window: tuple[int, int],
        embedded: list[str],
        empty: list[str],
        errors: bytes,
        dropped: bool = False,
    ) -> None:
        self.dropped = dropped  # entries were removed from the private index before staging
        self.paths = paths  # hashed by update-index in this capture
        self.window = window  # the seconds during which their stat data was recorded
        self.embedded = embedded  # repositories newly staged as gitlinks
        self.empty = empty  # repositories with no commit: left out
        self.filter_errors = filter_errors(errors)


def at_risk(checkout: Checkout, recent: list[str], window: list[int]) -> list[bytes]:
    """Paths staged by the last capture whose ctime still falls in the second it was recorded in.

    git compares ctime and mtime in whole seconds, so a same-size edit made in the same second as
    the capture that recorded a file, with its mtime put back, looks clean to the next status.
    For files untracked in the real index git would hash them again anyway (`git add -A`), so
    these few are hashed again too.
    """
    found = []
    for rel in recent:
        try:
            ctime = int(os.stat(os.path.join(checkout.root, rel), follow_symlinks=False).st_ctime)
        except OSError:
            continue  # gone: status reports the deletion
        if window[0] <= ctime <= window[1]:
            found.append(os.fsencode(rel))
    return found


def stage_worktree(
    checkout: Checkout, index: str, recheck: list[bytes] | None = None, after_status: Callable[[], None] | None = None
) -> Staged:
    """Make the private `index` match the working tree (like `git add -A`).

    `git add -A` cannot use git's untracked cache (its directory walk needs other flags), so a
    scan goes through `git status -unormal` on the private index, which does use it and keeps it
    (and the refreshed stat data) warm in that private index; only the reported paths are then
    hashed by `git update-index`. On a warm private index this costs less than `git status` on the
    real one.
    """
    env = {"GIT_INDEX_FILE": index, "GIT_OPTIONAL_LOCKS": "1"}  # the private index may be refreshed
    started = int(time.time())
    code, out, err = git.run_full(
        [*STATUS_CONFIG, "status", "--porcelain=v2", "-z", "-unormal", "--no-renames", "--ignore-submodules=dirty"],
        cwd=checkout.root,
        env=env,
    )
    if code != 0:
        raise_capture_failure(code, err)
    if after_status is not None:
        after_status()  # the private index as status left it, before anything is staged
    paths: list[bytes] = []
    dirs: list[bytes] = []
    beyond = _Leading(os.fsencode(checkout.root))
    drop = list(recheck or [])  # entries removed before staging (update-index skips stat-clean files)
    embedded: list[bytes] = []
    empty: list[bytes] = []  # repositories with no commit: git cannot record them, so they are left out
    records = out.split(b"\0")
    i = 0
    while i < len(records):
        rec = records[i]
        i += 1
        kind = rec[:2]
        if kind == b"1 ":
            if rec[3:4] != b".":
                path = rec.split(b" ", 8)[8]
                if rec[3:4] == b"D" and os.path.isdir(os.path.join(os.fsencode(checkout.root), path)):
                    # a folder where a tracked file was: `status -unormal` does not list what is
                    # inside it (`-uall` and `git add -A` do): drop the file's entry, expand the folder
                    dirs.append(path + b"/")
                    drop.append(path)
                elif rec[3:4] == b"D" and beyond.blocked(path):
                    drop.append(path)  # update-index refuses a path beyond a symlink: it is simply gone
                else:
                    paths.append(path)
        elif kind == b"2 ":
            if rec[3:4] != b".":
                paths.append(rec.split(b" ", 9)[9])
            i += 1  # the original path of a rename follows
        elif kind == b"u ":
            paths.append(rec.split(b" ", 10)[10])
        elif kind == b"? ":
            (dirs if rec.endswith(b"/") else paths).append(rec[2:])
    if dirs:
        listed = git.run(
            [
                "ls-files",
                "-z",
                "--others",
                "--exclude-standard",
                "--",
                *[d.decode("utf-8", "surrogateescape") for d in dirs],
            ],
            cwd=checkout.root,
            env={"GIT_INDEX_FILE": index, "GIT_LITERAL_PATHSPECS": "1"},
        )
        for p in listed.split(b"\0"):
            if p.endswith(b"/"):  # ls-files names a git repository inside the checkout with a slash
                (embedded if has_commit(os.path.join(checkout.root, os.fsdecode(p))) else empty).append(p)
            elif p:
                paths.append(p)
    paths += [
        p.rstrip(b"/") for p in embedded
    ]  # recorded as git add records them: a gitlink to their checked-out commit
    found = ([os.fsdecode(p.rstrip(b"/")) for p in embedded], [os.fsdecode(p) for p in empty])
    if drop:
        git.run(
            [*STATUS_CONFIG, "update-index", "-z", "--force-remove", "--stdin"],
            cwd=checkout.root,
            env={"GIT_INDEX_FILE": index},
            input=b"\0".join(drop) + b"\0",
        )
    if recheck:
        # hashed again (they were dropped above), unless a folder stands there now (status listed
        # what it holds) or a symlink or file above them
        paths = list(dict.fromkeys(paths + [p for p in recheck if not beyond.blocked(p) and not beyond.folder(p)]))
    if not paths:
        return Staged([], (started, started), *found, err, dropped=bool(drop))
    # Many new blobs (a big change) go into one pack instead of one loose file each: with a
    # threshold of 1 byte git streams every regular file that needs no filter into a single
    # pack per run (files that need conversion still take the normal path). About twice as fast
    # for 50,000 files, and no 50,000 loose objects for gc to pack later.
    bulk = ["-c", "core.bigFileThreshold=1"] if len(paths) > BULK_PATHS else []
    code, _, add_err = git.run_full(
        [*STATUS_CONFIG, *bulk, "update-index", "-z", "--add", "--remove", "--replace", "--stdin"],
        cwd=checkout.root,
        env={"GIT_INDEX_FILE": index},
        input=b"\0".join(paths) + b"\0",
    )
    if code != 0:
        raise_capture_failure(code, add_err)
    return Staged(paths, (started, int(time.time())), *found, err + add_err)


class _Leading:
    """Whether a path lies beyond a symlink or a file (a folder turned into one): git's
    `update-index` refuses such a path (`'link/f' is beyond a symbolic link`), so an entry the kept
    private index still holds there is removed instead. Each folder is looked at once."""

    def __init__(self, root: bytes) -> None:
        self.root = root
        self.dirs: dict[bytes, bool] = {}

    def folder(self, path: bytes) -> bool:
        try:
            return stat.S_ISDIR(os.lstat(os.path.join(self.root, path)).st_mode)
        except OSError:
            return False

    def blocked(self, path: bytes) -> bool:
        parts = path.split(b"/")[:-1]
        for i in range(1, len(parts) + 1):
            lead = b"/".join(parts[:i])
            real = self.dirs.get(lead)
            if real is None:
                try:
                    real = stat.S_ISDIR(os.lstat(os.path.join(self.root, lead)).st_mode)
                except OSError:
                    real = True  # missing: update-index removes the entry itself
                self.dirs[lead] = real
            if not real:
                return True
        return False


def raise_capture_failure(code: int, err: bytes) -> None:
    from pylon.errors import PylonError

    lines = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
    detail = "; ".join(lines[-3:]) or f"exit status {code}"
    raise PylonError(
        "capture-failed",
        f"pylon could not read the working tree to capture it: {detail}",
        "Fix the file named above (permissions, a broken filter driver), then run the command again.",
    )
