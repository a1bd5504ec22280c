"""`find START TESTS -delete` and `find START TESTS -exec rm [-r] {} +|;`: judged on what find matches.

Both delete exactly what `find START TESTS -print` lists (with `rm -r`, a matched folder goes with
everything in it), so the note asks find itself for that list (a FIND target: the tests, `+r` first
when matched folders go whole). Where a match lies in the checkout's own `.git` (`find . -type f
-delete`), the repository goes too: pylon's store keeps it, and the finding names `.git`. When the
start is the checkout's top folder the classifier reads .git itself for -name/-iname/-type tests,
and asks find the same question for any other tests (bounded in time; past it, unknown). Other
`-exec` commands are judged for each start as the command they run.
"""

from __future__ import annotations

import os

from pylon.guard.paths import destroyed
from pylon.guard.verdict import FIND, PATH, REVERSIBLE, UNKNOWN, Finding, Target
from pylon.guard.words import quote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.model import Cmd
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State

RECURSIVE = "+r"  # the first arg of a FIND target whose matched folders are removed whole (rm -r)
_RM = frozenset({"rm", "/bin/rm", "/usr/bin/rm"})
_TIMEOUT = 2.0


def rm_of_matches(inner: list[Arg]) -> tuple[bool, bool] | None:
    """(is rm of the matches, recursive) for the words of an -exec: `rm [-options] {}`; None otherwise."""
    if not inner or inner[0].text not in _RM:
        return None
    recursive = False
    operands = 0
    for w in inner[1:]:
        text = w.text
        if text is None:
            return None
        if text == "{}":
            operands += 1
        elif text.startswith("--"):
            recursive = recursive or text == "--recursive"
        elif text.startswith("-") and len(text) > 1:
            recursive = recursive or "r" in text or "R" in text
        else:
            return None
    return (True, recursive) if operands == 1 else None


def reaches_git(walk: Walk, start: str, state: State, tests: list[str], words: str, line: int) -> bool:
    """Add a finding and say True when find's matches reach into the checkout's .git (a start that
    is the checkout's top folder; nested repositories below other starts are refused by the
    snapshot, which lists the same matches)."""
    ctx = walk.ctx
    cwd = state.cwd or ctx.cwd
    if ctx.root is None or ctx.absolute(start, cwd) != ctx.root:
        return False
    dotgit = os.path.join(ctx.root, ".git")
    found = _in_git(dotgit, tests)
    if found is None:  # tests this reading does not know: ask find itself
        found = _find_says(walk, start, cwd, tests, words, line)
        if found is None:
            return True
    if found:  # the checkout's own .git: pylon's store keeps it (docs/explanation/guard.md, "What is kept")
        walk.add(
            Finding(
                REVERSIBLE,
                f"`{words}` matches {found}, inside the repository's .git (history, refs, stashes)",
                words,
                [Target(PATH, ".git")],
                line=line,
            )
        )
    return False


# Always true for matching (-prune only stops descending: read as not there, more matches, never fewer).
_NO_OPS = frozenset({"-a", "-and", "-depth", "-xdev", "-mount", "-noleaf", "-ignore_readdir_race", "-follow", "-prune"})


def _in_git(dotgit: str, tests: list[str]) -> str | None:
    """The first entry of .git (itself included) that ANDed -name/-iname/-type tests match ("" for
    none), or None when the tests hold anything else (find itself is asked then)."""
    import fnmatch
    import re

    names: list[re.Pattern[str]] = []
    types: list[str] = []
    i = 0
    while i < len(tests):
        t = tests[i]
        if t in _NO_OPS:
            i += 1
            continue
        if t in ("-maxdepth", "-mindepth"):  # read as no limit: more matches, never fewer
            i += 2
            continue
        if not t.startswith("-") and t not in ("(", ")", "!", ","):
            return ""  # a path after the expression: find refuses the command (nothing matches)
        if t not in ("-name", "-iname", "-type") or i + 1 >= len(tests):
            return None
        value = tests[i + 1]
        if t == "-type":
            types.append(value)
        else:
            names.append(re.compile(fnmatch.translate(value), re.IGNORECASE if t == "-iname" else 0))
        i += 2

    def hit(name: str, kind: str) -> bool:
        return all(p.match(name) for p in names) and all(kind in v.split(",") for v in types)

    if not os.path.lexists(dotgit):
        return ""
    top = "l" if os.path.islink(dotgit) else "d" if os.path.isdir(dotgit) else "f"
    if hit(".git", top):
        return ".git"
    stack = [dotgit] if top == "d" else []
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            link = entry.is_symlink()
            kind = "l" if link else "d" if entry.is_dir() else "f" if entry.is_file() else "?"
            if hit(entry.name, kind):
                return os.path.relpath(entry.path, os.path.dirname(dotgit))
            if kind == "d":
                stack.append(entry.path)
    return ""


def _find_says(walk: Walk, start: str, cwd: str, tests: list[str], words: str, line: int) -> str | None:
    import subprocess

    try:
        proc = subprocess.run(
            ["find", start, *tests, "-print0"],
            cwd=cwd,
            capture_output=True,
            timeout=_TIMEOUT,
            check=False,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
        )
    except (OSError, subprocess.SubprocessError):
        walk.add(
            Finding(
                UNKNOWN, f"`{words}`: pylon could not list what find matches within {_TIMEOUT:g} s", words, line=line
            )
        )
        return None
    for raw in proc.stdout.split(b"\0"):
        if b"/.git/" in b"/" + raw + b"/":
            return os.fsdecode(raw)[:200]
    return ""


_FIND_ACTIONS = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls", "-delete", "-quit"}
)
_FIND_PRINTS = frozenset({"-print", "-print0", "-printf", "-ls"})  # they would mix into the snapshot's listing
# Tests and options of find that take the next word as their value.
_FIND_TAKES = frozenset(
    {
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-newer",
        "-mtime",
        "-mmin",
        "-size",
        "-type",
        "-user",
        "-group",
        "-perm",
        "-ctime",
        "-atime",
        "-cmin",
        "-amin",
        "-maxdepth",
        "-mindepth",
        "-lname",
        "-ilname",
        "-inum",
        "-links",
        "-samefile",
        "-uid",
        "-gid",
        "-fstype",
        "-printf",
        "-fprint",
        "-fprint0",
        "-fls",
        "-regextype",
        "-context",
        "-xtype",
        "-used",
        "-newerXY",
        "-anewer",
        "-cnewer",
    }
)
_FIND_TESTS = frozenset(
    {
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-regex",
        "-iregex",
        "-newer",
        "-mtime",
        "-mmin",
        "-size",
        "-empty",
        "-type",
        "-user",
        "-perm",
        "-ctime",
        "-atime",
        "-cmin",
    }
)


def judge_find(walk: Walk, args: list[Arg], cmd: Cmd, state: State, sudo: bool) -> None:
    from pylon.guard.words import Arg as A

    starts: list[Arg] = []
    i = 1
    while i < len(args) and args[i].text in ("-H", "-L", "-P"):
        i += 1
    while i < len(args) and (args[i].text or "x")[0] not in "-!(":
        starts.append(args[i])
        i += 1
    starts = [A(s.text, s.glob, s.raw, under=True) for s in starts or [A(".", False, ".")]]
    expr = args[i:]
    words = quote(args)
    skip_to = 0
    for j, a in enumerate(expr):
        if j < skip_to:
            continue  # the value of a test (`-name -delete`) or the words of an -exec
        if a.text in ("-fprint", "-fprint0", "-fls", "-fprintf") and j + 1 < len(expr):  # they truncate FILE
            destroyed(
                walk,
                state,
                [expr[j + 1]],
                verb="truncates",
                words=words,
                line=cmd.line,
                recursive=False,
                sudo=sudo,
                must_exist=True,
            )
        if a.text in _FIND_TAKES:
            skip_to = j + 2
        elif a.text == "-delete":
            _delete(walk, starts, expr, state, words, cmd.line, sudo)
        elif a.text in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next((k for k in range(j + 1, len(expr)) if expr[k].text in (";", "+")), len(expr))
            skip_to = end + 1
            _exec(walk, starts, expr, j, end, state, words, cmd.line, sudo)


def _delete(walk: Walk, starts: list[Arg], expr: list[Arg], state: State, words: str, line: int, sudo: bool) -> None:
    from pylon.guard.words import Arg as A

    # with a test (-name, -type, ...) find deletes matches below the start, never .git as a whole
    filtered = any((e.text or "") in _FIND_TESTS for e in expr)
    marked = [A(s.text, s.glob, s.raw, under=filtered) for s in starts]
    tests = [e.text for e in expr if e.text != "-delete"]  # find lists them with the same tests
    _find_delete(walk, starts, marked, state, tests, (), words, line, sudo, filtered)


def _exec(
    walk: Walk, starts: list[Arg], expr: list[Arg], at: int, end: int, state: State, words: str, line: int, sudo: bool
) -> None:
    """`-exec CMD {} ;` at expr[at]..expr[end]: rm of the matches as -delete, any other CMD judged."""
    inner = expr[at + 1 : end]
    if not inner:
        return
    rm = rm_of_matches(inner)
    if rm is not None:  # `-exec rm {} +`: what find matches, as with -delete
        tests = [e.text for e in expr[:at] + expr[end + 1 :]]
        _find_delete(walk, starts, starts, state, tests, (RECURSIVE,) if rm[1] else (), words, line, sudo, True)
        return
    from pylon.guard.model import Cmd as C

    for start in starts:
        replaced = [start if w.text == "{}" or (w.text or "").endswith("/{}") else w for w in inner]
        walk.judge(walk, replaced, C([], [], [], line), state.copy(), None)


def _find_delete(
    walk: Walk,
    starts: list[Arg],
    marked: list[Arg],
    state: State,
    tests: list[str | None],
    mark: tuple[str, ...],
    words: str,
    line: int,
    sudo: bool,
    filtered: bool,
) -> None:
    """find deletes what its tests match: listed by find itself at snapshot time (a FIND target)."""
    listable = all(t is not None and t not in _FIND_ACTIONS and t not in _FIND_PRINTS for t in tests)
    if listable and any(
        s.text is not None and reaches_git(walk, s.text, state, [t for t in tests if t], words, line) for s in starts
    ):
        return
    destroyed(
        walk,
        state,
        marked,
        verb="deletes files under",
        words=words,
        line=line,
        sudo=sudo,
        checkout_ok=filtered,
        kind=FIND if listable else PATH,
        args_of_target=(*mark, *(t for t in tests if t is not None)) if listable else (),
    )
