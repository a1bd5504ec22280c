"""Where a command runs: the folder, the checkout around it, the temporary folders, and how a
path a command names is placed against them (inside the checkout, temporary, outside)."""

from __future__ import annotations

import os

from pylon.devpaths import is_device

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# Where a path lies. GIT_DATA: inside the checkout's .git (history, stashes, refs): no snapshot
# of the working tree brings that back. CONTAINS_CHECKOUT: the path is the checkout or above it.
TMP, INSIDE, GIT_DATA, CONTAINS_CHECKOUT, OUTSIDE, DEVICE = (
    "tmp",
    "inside",
    "git-data",
    "contains-checkout",
    "outside",
    "device",
)
# Names a default branch usually has; `push --force-with-lease` to any other is allowed.
DEFAULT_BRANCHES = ("main", "master", "trunk", "develop", "development", "production", "release")
# The variables the classifier reads from the environment (the rest are run-time values).
KNOWN_VARS = ("HOME", "TMPDIR", "TMP", "TEMP", "PWD", "USER")
_HARMLESS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/full"})


class Context:
    """`root`: the checkout's top folder, or None outside one. `branch`: the current branch."""

    __slots__ = ("cwd", "root", "env", "tmp_dirs", "home", "branch", "git_dirs", "probe")

    def __init__(
        self,
        cwd: str,
        root: str | None = None,
        *,
        env: dict[str, str] | None = None,
        branch: str | None = None,
        tmp_dirs: list[str] | None = None,
        probe: Callable[[str, str, list[str]], str | None] | None = None,
    ) -> None:
        self.env = dict(os.environ if env is None else env)
        self.cwd = os.path.abspath(cwd)
        self.root = _real(root) if root else None
        self.home = self.env.get("HOME", "")
        tmp = [self.env.get("TMPDIR", ""), "/tmp", "/var/tmp"] if tmp_dirs is None else tmp_dirs
        self.tmp_dirs = sorted({_real(t) for t in tmp if t and os.path.isabs(t)})
        self.branch = branch
        self.git_dirs = [os.path.join(self.root, ".git")] if self.root else []
        # probe(kind, cwd, args): questions only git can answer (pylon.workspace.ops.guard_probe), or None
        # where no git is asked (then a git alias is not looked up and a plain reset is not examined)
        self.probe: Callable[[str, str, list[str]], str | None] | None = probe

    def var(self, name: str) -> str | None:
        if name == "PWD":
            return None  # the classifier tracks cd itself
        return self.env.get(name) if name in KNOWN_VARS else None

    def absolute(self, path: str, cwd: str) -> str:
        """The path as the command will open it: ~ expanded, relative to cwd, `..` folded through
        the real parent folders (the last component itself is not followed: rm removes a link)."""
        if path == "~" or path.startswith("~/"):
            path = self.home + path[1:]
        joined = os.path.join(cwd, path)
        parent, name = os.path.split(os.path.normpath(joined))
        if name in ("", ".", ".."):
            return _real(joined)
        return os.path.join(_real(parent), name)

    def locate(self, absolute: str) -> str:
        if absolute in _HARMLESS or absolute.startswith(("/dev/fd/", "/proc/self/fd/")):
            return TMP  # writing there destroys nothing
        if is_device(absolute):
            return DEVICE
        if self.root and _within(absolute, self.root):
            if absolute == self.root:
                return CONTAINS_CHECKOUT
            if any(_within(absolute, g) for g in self.git_dirs):
                return GIT_DATA
            return INSIDE
        if self.root and _within(self.root, absolute):
            return CONTAINS_CHECKOUT
        if self.home and self.home != "/" and _within(absolute, _real(self.home)):
            return OUTSIDE  # a home folder is never temporary, wherever it lies
        if any(_within(absolute, t) and absolute != t for t in self.tmp_dirs):
            return TMP
        return OUTSIDE

    def relative(self, absolute: str) -> str:
        """Root-relative form of a path inside the checkout ("" for the root itself)."""
        if not self.root:
            return absolute
        rel = os.path.relpath(absolute, self.root)
        return "" if rel == "." else rel

    def show(self, absolute: str) -> str:
        """How a path is named in a reason: root-relative inside the checkout, else absolute."""
        if self.root and _within(absolute, self.root) and absolute != self.root:
            return self.relative(absolute)
        return absolute


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _real(path: str) -> str:
    return os.path.realpath(path)
