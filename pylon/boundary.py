"""What an entry point may reach: one decision for the CLI, `pylon mcp`, the hooks and the board.

A person at the command line may name any file or folder (`pylon read /etc/hosts`, `--body-file
~/notes.md`, `--root ../other`): nothing is confined and every function here does what a plain
open would. The other entry points run their work inside `confined(Reach(...))`: then every path
that reaches the libraries from outside (a file to read or edit, a body or ops file, a store root
or mount, the folder a call runs in) must lie beneath one of the reach's folders, or it is refused
with `path-outside` and `error.reason` (`absolute`, `dotdot`, `symlink-outside`, `git-dir`).

Resolution is race-free: the part of a path below its folder is walked by `beneath.py`,
each component opened relative to the one before with `O_NOFOLLOW`, symlinks read and followed by
pylon itself and refused when they leave. What the caller gets is the descriptor (a file to read,
a folder to create in), or, for the edit engine, a name that reaches the opened folder itself
(`/proc/self/fd/N/NAME` while the reach holds that descriptor), so no later swap of a folder on
the way for a symlink can redirect the open, the lock or the rename. docs/boundary.md has the table.
"""

from __future__ import annotations

import os
from contextvars import ContextVar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from types import TracebackType
    from typing import Any

_PROC_FD = "/proc/self/fd"


class Reach:
    """The folders one entry point may reach. `more` is asked once, lazily, for further folders
    (an MCP server's owned worktrees) when a path lies under none of `folders`."""

    __slots__ = ("who", "folders", "_more", "_held", "_names", "pins")

    def __init__(self, who: str, folders: Iterable[str], more: Callable[[], list[str]] | None = None) -> None:
        self.who = who
        self.folders: list[str] = []
        for folder in folders:
            self.allow(folder)
        self._more = more
        self._held: list[int] = []  # descriptors behind the names handed out (closed on leaving)
        self._names: dict[str, str] = {}  # /proc/self/fd/N/NAME -> the path it was resolved from
        self.pins: dict[str, str] = {}  # a folder -> the /proc/self/fd name a caller pinned it as (held)

    def allow(self, folder: str) -> None:
        """Add a folder (absolute; its real path is added too, so both spellings match)."""
        for form in (os.path.normpath(folder), os.path.realpath(folder)):
            if form not in self.folders:
                self.folders.append(form)

    def folder_of(self, full: str) -> tuple[str, str] | None:
        """(folder, the rest below it) for an absolute path, by its spelling; the deepest folder wins."""
        for attempt in range(2):
            best: tuple[str, str] | None = None
            for folder in self.folders:
                base = folder.rstrip("/")
                inside = full == folder or full.startswith(base + "/")
                if inside and (best is None or len(folder) > len(best[0])):
                    best = (folder, full[len(base) :].lstrip("/"))
            if best is not None or attempt or self._more is None:
                return best
            more, self._more = self._more, None
            for folder in more():
                self.allow(folder)
        return None

    def hold(self, fd: int) -> None:
        self._held.append(fd)

    def close(self) -> None:
        for fd in self._held:
            os.close(fd)
        self._held.clear()
        self._names.clear()
        self.pins.clear()


# None: a person at the command line, who may name anything. A context variable: each thread of
# the board (a threading server) has its own, so one request's reach is never another's.
_CURRENT: ContextVar[Reach | None] = ContextVar("pylon_reach", default=None)


def current() -> Reach | None:
    return _CURRENT.get()


class confined:  # used like a function: `with confined(Reach(...)):`
    """Run the block with `reach` as what may be reached; the descriptors it held are closed after."""

    def __init__(self, reach: Reach) -> None:
        self.reach = reach
        self.token: Any = None

    def __enter__(self) -> Reach:
        self.token = _CURRENT.set(self.reach)
        return self.reach

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        _CURRENT.reset(self.token)
        self.reach.close()


def outside(path: str, reason: str, why: str, reach: Reach | None = None) -> Exception:
    """The one refusal: `path-outside`, with `error.reason` and what the entry point may reach."""
    from typing import cast

    from pylon.errors import UsageError
    from pylon.jsonbytes import safe

    reach = reach or _CURRENT.get()
    who = reach.who if reach else "pylon"
    where = ", ".join(reach.folders[:3]) if reach else "the checkout"
    details = cast("dict[str, object]", safe({"reason": reason, "path": path, "entry": who}))
    return UsageError(
        "path-outside",
        f"{who} refuses {path!r}: {why}.",
        f"{who} reaches only files inside {where}; pass a path inside it (relative, or absolute "
        "under it), with no '..' and no symlink leading out.",
        details=details,
    )


def _place(path: str, reach: Reach) -> tuple[str, str]:
    """(folder of the reach, the rest) for `path`: by its spelling, then checked by its components."""
    if not path:
        raise outside(path, "empty", "an empty path names nothing", reach)
    full = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    found = reach.folder_of(full)
    if found is None:
        found = reach.folder_of(os.path.normpath(full))  # `a/../b` spelled inside: the walk decides
        if found is None:
            reason = "absolute" if os.path.isabs(path) else "dotdot" if ".." in path.split("/") else "outside"
            raise outside(path, reason, "it lies outside what this entry point may reach", reach)
    folder, rest = found
    depth = 0
    for part in rest.split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                raise outside(path, "dotdot", "its '..' components lead above the folder it may reach", reach)
        elif part not in ("", "."):
            depth += 1
            if part.lower() == ".git":
                raise outside(path, "git-dir", "it lies in .git, which is git's", reach)
    return folder, rest


# Files that widen what an agent may reach or run: canon's mounts, the guard's policy, the clients'
# hooks, permissions and MCP servers. A confined entry point (pylon mcp) never writes them: an MCP
# tool is not covered by the client's permission rules, so a write there would be the way around them.
_CONFIG_FILES = frozenset(
    {
        ".canon/config.toml",
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".mcp.json",
        ".codex/config.toml",
        ".codex/hooks.json",
    }
)
_CONFIG_FOLDERS = (".pylon/",)
_STORE = ".canon"  # canon's store: its articles and entries are written by the canon tools, within their limits


def refuse_config(path: str, rest: str, reach: Reach | None = None) -> None:
    """Refuse (`path-outside`) a confined write to a file that configures pylon or an agent client
    (reason `config`), or to a file in a canon store (`canon-store`: the edit tool would write around
    the limits canon_write keeps and rewrite entries canon never rewrites); `rest` is the path below
    the reach's folder (a person is never refused)."""
    reach = reach or _CURRENT.get()
    if reach is None:
        return
    rel = os.path.normpath(rest).lstrip("/")
    parts = rel.split("/")
    if (
        rel in _CONFIG_FILES
        or any((rel + "/").startswith(f) for f in _CONFIG_FOLDERS)
        or parts[-2:] == [_STORE, "config.toml"]
    ):
        raise outside(path, "config", "it configures pylon or an agent client, which a tool call may not change", reach)
    if _STORE in parts[:-1]:
        raise outside(path, "canon-store", "it is in canon's store, which canon_write and canon_journal write", reach)


def refuse_config_at(path: str, real: str, reach: Reach | None = None) -> None:
    """refuse_config for the file a walk reached (`real`: its folder's real path and its name), so a
    link on the way into `.canon/` or `.claude/` is judged by where it leads, not by its spelling."""
    reach = reach or _CURRENT.get()
    if reach is None:
        return
    found = reach.folder_of(real)
    refuse_config(path, found[1] if found else os.path.basename(real), reach)


def place(path: str, write: bool = False) -> tuple[str, str] | None:
    """None for a person; confined, (the folder of the reach `path` lies in, the rest below it), by
    its spelling (the caller walks the rest beneath the folder: beneath.folder_beneath). `write`:
    the caller writes there, so a configuration file is refused too (refuse_config)."""
    reach = _CURRENT.get()
    if reach is None:
        return None
    placed = _place(path, reach)
    if write:
        refuse_config(path, placed[1], reach)
    return placed


def _walk_error(path: str) -> Callable[[str], None]:
    def missing(shown: str) -> None:
        raise FileNotFoundError(2, "No such file or directory", path)

    return missing


def _confined_refusal(exc: Exception, path: str, reach: Reach) -> Exception:
    """beneath's `path-outside` (a symlink leading out) in this module's words; others unchanged."""
    code = getattr(exc, "code", "")
    if code == "path-outside":
        reason = str(getattr(exc, "details", {}).get("reason", "symlink-outside"))
        return outside(path, reason, "a symlink on the way leads out of what this entry point may reach", reach)
    if code == "path-refused" and getattr(exc, "details", {}).get("reason") == "git-dir":
        return outside(path, "git-dir", "a symlink on the way leads into .git, which is git's", reach)
    return exc


def open_file(path: str, flags: int) -> int:
    """A descriptor of the file `path` for reading. A person: `os.open(path, flags)` (OSError as
    it comes). Confined: opened beneath its folder (FileNotFoundError when absent; a folder,
    device or FIFO refused with its code)."""
    reach = _CURRENT.get()
    if reach is None:
        return os.open(path, flags)
    from pylon.beneath import open_beneath

    folder, rest = _place(path, reach)
    try:
        return open_beneath(folder, rest, path, reach.who, _walk_error(path))
    except FileNotFoundError:
        raise
    except Exception as exc:  # re-worded, never swallowed
        raise _confined_refusal(exc, path, reach) from None


def open_folder(path: str, create: bool = False) -> int:
    """A descriptor of the folder `path` (created, with the folders on the way, when `create`).
    A person: `os.open(path, O_DIRECTORY)` (links followed, nothing created). Confined: walked beneath its folder."""
    reach = _CURRENT.get()
    if reach is None:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    from pylon.beneath import close_made, folder_beneath

    folder, rest = _place(path, reach)
    made: list[tuple[int, str]] = []
    try:
        fd = folder_beneath(folder, rest, path, made if create else None, reach.who, _walk_error(path))
    except FileNotFoundError:
        raise
    except Exception as exc:  # re-worded, never swallowed
        raise _confined_refusal(exc, path, reach) from None
    finally:
        close_made(made)
    return fd


def check_folder(path: str) -> str:
    """`path` itself for a person; confined, the real path of the folder it names, which must lie
    beneath the reach (refused with `path-outside` otherwise, `not-found` when absent)."""
    reach = _CURRENT.get()
    if reach is None:
        return path
    try:
        fd = open_folder(path)
    except FileNotFoundError:
        from pylon.errors import NotFoundError

        raise NotFoundError(
            "not-found", f"{path} is not a folder.", "Pass an existing folder inside the project."
        ) from None
    try:
        return real_of(fd, path)
    finally:
        os.close(fd)


def enter_folder(path: str) -> None:
    """Make `path` the current folder: a person by `chdir`; confined, by the descriptor the walk opened."""
    if _CURRENT.get() is None:
        os.chdir(path)
        return
    fd = open_folder(path)
    try:
        os.fchdir(fd)
    finally:
        os.close(fd)


def real_of(fd: int, path: str) -> str:
    """The real path of an open folder (the kernel's name for it where /proc says it)."""
    try:
        return os.readlink(f"{_PROC_FD}/{fd}")
    except OSError:
        return os.path.realpath(path)


def edit_path(path: str, _hops: int = 0, write: bool = False) -> str | None:
    """For the edit engine: None for a person (it follows links itself, as a shell would); confined,
    a name for the file `path` that reaches it through the descriptor of its folder, opened beneath
    the reach and held until the reach is left (its real path where /proc is missing). A symlink
    as the last component is followed the same way: the engine edits the file it names."""
    import stat

    from pylon.beneath import MAX_LINKS

    reach = _CURRENT.get()
    if reach is None:
        return None
    placed = _place(path, reach)  # refused by its own name first
    if write:
        refuse_config(path, placed[1], reach)
    head, name = os.path.split(path.rstrip("/") or path)  # `src/`: the folder, which the engine refuses as one
    if name in ("", ".", ".."):
        head, name = path, "."
    try:
        fd = open_folder(head or ".")
    except Exception as exc:  # re-worded for the whole path, never swallowed
        if getattr(exc, "code", "") != "path-outside":
            raise
        raise outside(
            path,
            str(getattr(exc, "details", {}).get("reason", "symlink-outside")),
            "a symlink on the way leads out of what this entry point may reach",
            reach,
        ) from None
    real = os.path.join(real_of(fd, head or "."), name)
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        target = os.readlink(name, dir_fd=fd)
        os.close(fd)
        if _hops >= MAX_LINKS:
            from pylon.beneath import refuse

            refuse(path, "symlink-loop", f"more than {MAX_LINKS} symlinks lead on from it (a loop?)", reach.who)
        try:
            return edit_path(os.path.join(os.path.dirname(real), target), _hops + 1, write)
        except Exception as exc:  # re-worded for the name given, never swallowed
            if (
                getattr(exc, "code", "") != "path-outside"
                or _hops
                or getattr(exc, "details", {}).get("reason") == "config"
            ):
                raise
            raise outside(
                path, "symlink-outside", f"it is a symlink to {target}, outside what this entry point may reach", reach
            ) from None
    if write:  # the file a link leads to, or a link on the way, is checked too
        try:
            refuse_config_at(path, real, reach)
        except Exception:
            os.close(fd)
            raise
    held = f"{_PROC_FD}/{fd}"
    if not os.path.isdir(held):
        os.close(fd)
        return real
    reach.hold(fd)
    reach._names[f"{held}/{name}"] = real
    return f"{held}/{name}"


def key_of(io_path: str) -> str:
    """The real path an `edit_path` name stands for (what the edit ledger is keyed by); others unchanged."""
    reach = _CURRENT.get()
    if reach is not None and io_path in reach._names:
        return reach._names[io_path]
    return io_path


def inside_checkout(root: str, cwd: str, paths: list[str], who: str = "pylon hook") -> list[str]:
    """Root-relative forms of the paths (as a tool's input names them, from `cwd`) that lie in the
    checkout `root`, each once: the path as named and, when it is a symlink, the file it leads to
    (the agents' file tools write through links). Folders on the way are walked beneath the root
    (`O_NOFOLLOW`, links followed by pylon and dropped when they leave); `.git` and everything
    outside are left out, never refused: a hook only decides what to keep before a tool runs."""
    from pylon.errors import PylonError

    reach = Reach(who, [root])
    base = os.path.realpath(root)
    out: list[str] = []
    with confined(reach):
        for path in paths:
            full = os.path.join(cwd, os.path.expanduser(path))
            for hop in range(2):
                try:
                    found = edit_path(full) if hop else _named(full)
                except (PylonError, OSError):
                    break
                rel = os.path.relpath(key_of(found or full), base)
                if rel not in out and not rel.startswith(".."):
                    out.append(rel)
    return out


def _named(full: str) -> str:
    """The real path of `full`'s folder (walked beneath the reach) joined with its last name: the link itself."""
    head, name = os.path.split(full)
    if name in ("", ".", ".."):
        raise FileNotFoundError(2, "not a file name", full)
    fd = open_folder(head or ".")
    try:
        return os.path.join(real_of(fd, head or "."), name)
    finally:
        os.close(fd)
