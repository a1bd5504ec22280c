"""git: its own options (-C, --git-dir, -c, aliases given with -c or found in the settings), then
the subcommand's rule (gitwork.py, one small rule each; refs and pushes: gitrefs.py). A git command
that changes another repository than this checkout's is irreversible: its state is not this one's.
"""

from __future__ import annotations

import os

from pylon.guard import context as cx
from pylon.guard.commands.gitwork import _program_setting, _subcommand
from pylon.guard.verdict import IRREVERSIBLE, PATH, REVERSIBLE, SAFE, UNKNOWN, Finding
from pylon.guard.words import quote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.model import Cmd
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State

# Global options before the subcommand that take a value.
_GLOBAL_TAKES = frozenset(
    {
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--exec-path",
        "--config-env",
        "--super-prefix",
        "--list-cmds",
        "--attr-source",
    }
)


class _Globals:
    """git's own options before the subcommand: the folder (-C), another repository (--git-dir,
    --work-tree), aliases given with -c; `at` is the subcommand's index (len(args): none)."""

    __slots__ = ("cwd", "elsewhere", "aliases", "at")

    def __init__(self, cwd: str | None) -> None:
        self.cwd, self.at = cwd, 1
        self.elsewhere: str | None = None
        self.aliases: dict[str, str] = {}


def _globals(walk: Walk, args: list[Arg], cmd: Cmd, state: State) -> _Globals | None:
    """Read git's global options; None (with an unknown finding) when one is known only at run time."""
    g = _Globals(state.cwd)
    while g.at < len(args):
        text = args[g.at].text
        if text is None:
            walk.add(
                Finding(
                    UNKNOWN, f"`{quote(args)}` has a git option known only when it runs", args[g.at].raw, line=cmd.line
                )
            )
            return None
        if not text.startswith("-"):
            break
        key, _, inline = text.partition("=")
        if key in _GLOBAL_TAKES and not inline:
            value = args[g.at + 1].text if g.at + 1 < len(args) else None
            if value is None:
                walk.add(
                    Finding(
                        UNKNOWN, f"`{quote(args)}`: {text} takes a value known only when it runs", text, line=cmd.line
                    )
                )
                return None
            inline = value
            g.at += 1
        _global(walk, g, key, inline, args, cmd, state)
        g.at += 1
    return g


def _global(walk: Walk, g: _Globals, key: str, inline: str, args: list[Arg], cmd: Cmd, state: State) -> None:
    ctx = walk.ctx
    if key == "-C":
        # an absolute path needs no cwd (join drops it), but join takes no None: any str stands in
        known = g.cwd if g.cwd is not None else ctx.cwd
        g.cwd = ctx.absolute(inline, known) if g.cwd is not None or os.path.isabs(inline) else None
    elif key in ("--git-dir", "--work-tree"):
        g.elsewhere = ctx.absolute(inline, g.cwd or ctx.cwd)
    elif key == "-c" and inline.startswith("alias."):
        name, _, body = inline[len("alias.") :].partition("=")
        g.aliases[name] = body
    elif key == "-c":
        config_key, _, body = inline.partition("=")
        _program_setting(walk, config_key, body, state, quote(args), cmd.line)


def judge_git(walk: Walk, args: list[Arg], cmd: Cmd, state: State, sudo: bool) -> None:
    g = _globals(walk, args, cmd, state)
    if g is None or g.at >= len(args):
        return
    sub = args[g.at].text or ""
    rest = args[g.at + 1 :]
    words = quote(args)
    if sub not in g.aliases and sub not in BUILTINS and not _known_alias(walk, g, sub, state, words, cmd):
        return
    if sub in g.aliases:
        _run_alias(walk, args, g.aliases[sub], rest, cmd, state, sudo, sub, words)
        return
    bare = next((a for a in rest if a.bare), None)
    if bare is not None:  # `git branch $(producer)`: the shell may split it into options
        walk.add(
            Finding(
                UNKNOWN,
                f"`{words}`: {bare.raw} is known only when it runs and, unquoted, may become any options",
                bare.raw,
                line=cmd.line,
            )
        )
        return
    before = len(walk.findings)
    _subcommand(walk, sub, rest, type(state)(g.cwd, state.vars, state.depth), words, cmd.line)
    _where(walk, g, walk.findings[before:], words, cmd.line, sudo)


def _known_alias(walk: Walk, g: _Globals, sub: str, state: State, words: str, cmd: Cmd) -> bool:
    """Find `git SUB` as an alias (the script's, the user's settings); False when git refuses it or
    it is an external program (then unknown)."""
    found = state.aliases.get("git " + sub)
    if found is None:
        found = _configured_alias(walk, sub, g.cwd, g.elsewhere)
    if found is None:
        return False  # git refuses a command it does not know
    if found == "\0external":
        walk.add(
            Finding(
                UNKNOWN,
                f"`{words}` runs the external command git-{sub}, which pylon does not read",
                words,
                line=cmd.line,
            )
        )
        return False
    g.aliases[sub] = found
    return True


def _run_alias(
    walk: Walk, args: list[Arg], body: str, rest: list[Arg], cmd: Cmd, state: State, sudo: bool, sub: str, words: str
) -> None:
    if state.depth > 8:
        walk.add(Finding(UNKNOWN, f"`{words}`: git aliases nested too deeply to follow", words, line=cmd.line))
        return
    state = type(state)(
        state.cwd, state.vars, state.depth + 1, {k: v for k, v in state.aliases.items() if k != "git " + sub}
    )
    if body.startswith("!"):
        walk.script(body[1:] + " " + " ".join(a.raw for a in rest), state.copy(), cmd.line)
        return
    from pylon.guard.words import Arg as A

    judge_git(walk, [args[0], *[A(w, False, w) for w in body.split()], *rest], cmd, state, sudo)


def _where(walk: Walk, g: _Globals, found: list[Finding], words: str, line: int, sudo: bool) -> None:
    """What a reversible git command's folder makes of it: unknown where that folder is known only
    at run time, irreversible in another repository (its state is not this checkout's) or as root."""
    ctx = walk.ctx
    changes = any(f.verdict == REVERSIBLE for f in found)
    if g.cwd is None and changes:
        walk.add(Finding(UNKNOWN, f"`{words}` runs in a folder known only when it runs", words, line=line))
    work = g.elsewhere if g.elsewhere is not None else g.cwd
    if work is not None and changes:
        where = ctx.locate(work)
        other = where not in (cx.INSIDE, cx.CONTAINS_CHECKOUT) or (ctx.root and not _same_repo(ctx.root, work))
        if other and where != cx.TMP:
            walk.add(
                Finding(
                    IRREVERSIBLE, f"`{words}` acts on the repository at {work}, not this checkout", words, line=line
                )
            )
    if sudo and any(f.verdict != SAFE for f in found):
        walk.add(Finding(IRREVERSIBLE, f"`{words}` runs as root", words, line=line))


def _same_repo(root: str, work: str) -> bool:
    """`work` is inside `root` and not inside a nested repository below it."""
    path = work
    while path.startswith(root) and path != root:
        if os.path.exists(os.path.join(path, ".git")):
            return False
        path = os.path.dirname(path)
    return path == root


def _configured_alias(walk: Walk, sub: str, cwd: str | None, elsewhere: str | None) -> str | None:
    """A git alias the user's settings define for `sub` (the text), "\0external" for a git-SUB
    program on PATH, or None when git would refuse the command."""
    probe = walk.ctx.probe
    if probe is None or not sub or sub.startswith("-"):
        return None
    found = probe("alias", elsewhere or cwd or walk.ctx.cwd, [sub])
    if found:
        return found
    import shutil

    return "\0external" if shutil.which("git-" + sub, path=walk.ctx.env.get("PATH")) else None


# git's own commands (`git help -a`): anything else is an alias or an external git-NAME program.
BUILTINS = frozenset(
    """add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr
check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone
column commit commit-graph commit-tree config count-objects credential credential-cache credential-store
describe diagnose diff diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack
filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc
get-tar-commit-id grep gui hash-object help hook http-backend http-fetch http-push index-pack init
init-db instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge
merge-base merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive merge-resolve
merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes p4 pack-objects
pack-redundant pack-refs patch-id prune prune-packed pull push quiltimport range-diff read-tree rebase
receive-pack reflog refs remote repack replace replay request-pull rerere reset restore rev-list rev-parse
revert rm send-email send-pack sh-i18n sh-setup shortlog show show-branch show-index show-ref
sparse-checkout stage stash status stripspace submodule svn switch symbolic-ref tag unpack-file
unpack-objects update-index update-ref update-server-info upload-archive upload-pack var verify-commit
verify-pack verify-tag version whatchanged worktree write-tree filter-repo lfs flow absorb""".split()
)


__all__ = ["PATH", "judge_git"]
