"""git, judged by what each subcommand destroys (docs/guard.md has the table).

Working-tree losses inside the checkout (reset --hard, checkout -- PATH, restore, clean) are
reversible: a snapshot keeps them. Losses in the repository's own data (branches, tags,
stashes, reflogs, unreachable objects) and on remotes are irreversible.
"""

from __future__ import annotations

import os

from pylon.guard import context as cx
from pylon.guard.paths import destroyed
from pylon.guard.words import quote
from pylon.guard.verdict import (CHECKOUT, GIT_CLEAN, IRREVERSIBLE, PATH, REVERSIBLE, SAFE, TRACKED, UNKNOWN, Finding,
                                 Target)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State
    from pylon.guard.model import Cmd

# Global options before the subcommand that take a value.
_GLOBAL_TAKES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env",
                           "--super-prefix", "--list-cmds", "--attr-source"})


def judge_git(walk: Walk, args: list[Arg], cmd: Cmd, state: State, sudo: bool) -> None:
    ctx = walk.ctx
    cwd = state.cwd
    elsewhere: str | None = None  # a repository other than the checkout (--git-dir/--work-tree)
    aliases: dict[str, str] = {}
    i = 1
    while i < len(args):
        text = args[i].text
        if text is None:
            walk.add(Finding(UNKNOWN, f"`{quote(args)}` has a git option known only when it runs", args[i].raw,
                             line=cmd.line))
            return
        if not text.startswith("-"):
            break
        value = args[i + 1].text if i + 1 < len(args) else None
        key, _, inline = text.partition("=")
        if key in _GLOBAL_TAKES and not inline:
            if value is None:
                walk.add(Finding(UNKNOWN, f"`{quote(args)}`: {text} takes a value known only when it runs",
                                 text, line=cmd.line))
                return
            inline = value
            i += 1
        if key == "-C":
            # an absolute path needs no cwd (join drops it), but join takes no None: any str stands in
            known = cwd if cwd is not None else ctx.cwd
            cwd = ctx.absolute(inline, known) if cwd is not None or os.path.isabs(inline) else None
        elif key in ("--git-dir", "--work-tree"):
            elsewhere = ctx.absolute(inline, cwd or ctx.cwd)
        elif key == "-c" and inline.startswith("alias."):
            name, _, body = inline[len("alias."):].partition("=")
            aliases[name] = body
        i += 1
    if i >= len(args):
        return
    sub = args[i].text or ""
    rest = args[i + 1 :]
    words = quote(args)
    if sub in aliases:
        body = aliases[sub]
        if body.startswith("!"):
            walk.script(body[1:] + " " + " ".join(a.raw for a in rest), state.copy(), cmd.line)
        else:
            from pylon.guard.words import Arg as A

            expanded = [args[0], *[A(w, False, w) for w in body.split()], *rest]
            judge_git(walk, expanded, cmd, state, sudo)
        return
    bare = next((a for a in rest if a.bare), None)
    if bare is not None:  # `git branch $(producer)`: the shell may split it into options
        walk.add(Finding(UNKNOWN, f"`{words}`: {bare.raw} is known only when it runs and, unquoted, may become "
                         "any options", bare.raw, line=cmd.line))
        return
    inner = type(state)(cwd, state.vars, state.depth)
    before = len(walk.findings)
    _subcommand(walk, sub, rest, inner, words, cmd.line)
    if cwd is None and any(f.verdict == REVERSIBLE for f in walk.findings[before:]):
        walk.add(Finding(UNKNOWN, f"`{words}` runs in a folder known only when it runs", words, line=cmd.line))
    work = elsewhere if elsewhere is not None else cwd
    if work is not None and any(f.verdict == REVERSIBLE for f in walk.findings[before:]):
        where = ctx.locate(work)
        if where not in (cx.INSIDE, cx.CONTAINS_CHECKOUT) or (ctx.root and not _same_repo(ctx.root, work)):
            if where != cx.TMP:
                walk.add(Finding(IRREVERSIBLE, f"`{words}` acts on the repository at {work}, not this checkout",
                                 words, line=cmd.line))
    if sudo and any(f.verdict != SAFE for f in walk.findings[before:]):
        walk.add(Finding(IRREVERSIBLE, f"`{words}` runs as root", words, line=cmd.line))


def _same_repo(root: str, work: str) -> bool:
    """`work` is inside `root` and not inside a nested repository below it."""
    path = work
    while path.startswith(root) and path != root:
        if os.path.exists(os.path.join(path, ".git")):
            return False
        path = os.path.dirname(path)
    return path == root


def _flags(rest: list[Arg]) -> tuple[set[str], list[Arg], list[Arg]]:
    """(options, words before `--`, words after `--`); short clusters split (-fdx -> -f -d -x)."""
    flags: set[str] = set()
    before: list[Arg] = []
    after: list[Arg] = []
    dashed = False
    for a in rest:
        t = a.text
        if dashed:
            after.append(a)
        elif t == "--":
            dashed = True
        elif t is not None and t.startswith("--"):
            flags.add(t.split("=", 1)[0])
            if "=" in t:
                flags.add(t)
        elif t is not None and t.startswith("-") and len(t) > 1:
            flags.update("-" + c for c in t[1:])
            flags.add(t)
        else:
            before.append(a)
    return flags, before, after


def _checkout_all(walk: Walk, verdict_words: str, line: int, what: str) -> None:
    walk.add(Finding(REVERSIBLE, f"`{verdict_words}` {what}", verdict_words, [Target(CHECKOUT)], line=line))


def _subcommand(walk: Walk, sub: str, rest: list[Arg], state: State, words: str, line: int) -> None:
    flags, before, after = _flags(rest)
    irreversible = lambda why: walk.add(Finding(IRREVERSIBLE, f"`{words}` {why}", words, line=line))  # noqa: E731
    if sub == "reset":
        if flags & {"--hard", "--merge", "--keep"}:
            _checkout_all(walk, words, line, "discards uncommitted changes to tracked files")
    elif sub == "checkout":
        if flags & {"-b", "-B", "--orphan"} and not after:
            return
        if after or flags & {"-p", "--patch"}:
            destroyed(walk, state, after or [_dot()], verb="discards the uncommitted changes of", words=words,
                      line=line, checkout_ok=True, kind=TRACKED)
        elif flags & {"-f", "--force"}:
            _checkout_all(walk, words, line, "discards uncommitted changes while switching")
        else:
            paths = [a for a in before if a.text is None or a.text == "." or os.path.lexists(
                walk.ctx.absolute(a.text, state.cwd or walk.ctx.cwd))]
            if paths:
                destroyed(walk, state, paths, verb="discards the uncommitted changes of", words=words, line=line,
                          checkout_ok=True, kind=TRACKED)
    elif sub == "restore":
        if flags & {"--staged", "-S"} and not flags & {"--worktree", "-W"}:
            _checkout_all(walk, words, line, "unstages changes (the staged content is lost)")
        else:
            destroyed(walk, state, (before + after) or [_dot()], verb="discards the uncommitted changes of",
                      words=words, line=line, checkout_ok=True, kind=TRACKED)
    elif sub == "switch":
        if flags & {"-f", "--force", "--discard-changes"}:
            _checkout_all(walk, words, line, "discards uncommitted changes while switching")
    elif sub == "clean":
        if flags & {"-n", "--dry-run"} or not flags & {"-f", "--force", "-i", "--interactive"}:
            return
        kept = tuple(sorted(f for f in flags if f in ("-d", "-x", "-X", "-ff")))
        if "-f" in flags and any((a.text or "").startswith("-") and not
                                 (a.text or "").startswith("--") and (a.text or "").count("f") > 1 for a in rest):
            kept += ("-ff",)
        cleaned = [(a.text or "") for a in before + after]
        what = "ignored and untracked files" if flags & {"-x"} else "ignored files" if "-X" in flags \
            else "untracked files"
        base = walk.ctx.relative(state.cwd) if state.cwd and walk.ctx.locate(state.cwd) == cx.INSIDE else ""
        walk.add(Finding(REVERSIBLE, f"`{words}` removes {what}" + (" and folders" if "-d" in flags else ""), words,
                         [Target(GIT_CLEAN, base, (*kept, "--", *cleaned))], line=line))
    elif sub == "rm":
        if not flags & {"--cached", "-n", "--dry-run"}:
            destroyed(walk, state, before + after, verb="removes", words=words, line=line, checkout_ok=True, kind=TRACKED)
    elif sub == "mv" and flags & {"-f", "--force"}:
        if len(before) >= 2:
            destroyed(walk, state, before[-1:], verb="may overwrite", words=words, line=line, must_exist=True)
    elif sub == "stash":
        action = before[0].text if before else None
        if action in ("drop", "clear"):
            irreversible(f"deletes stash entries ({action}); they live only in the repository")
    elif sub == "branch":
        if flags & {"-D"} or (flags & {"-d", "--delete"} and flags & {"-f", "--force"}):
            irreversible("force-deletes branches, with commits that may be on no other branch")
        elif flags & {"-M", "-C"} or (flags & {"-m", "-c", "--move", "--copy"} and flags & {"-f", "--force"}):
            irreversible("overwrites an existing branch")
    elif sub == "tag" and flags & {"-d", "--delete"}:
        irreversible("deletes tags")
    elif sub == "push":
        _push(walk, flags, before, words, line)
    elif sub == "worktree":
        action = before[0].text if before else None
        if action == "remove" and flags & {"-f", "--force"}:
            irreversible("removes a worktree with its uncommitted changes, outside this checkout")
    elif sub in ("filter-branch", "filter-repo"):
        irreversible("rewrites the history of every branch it touches")
    elif sub == "gc" and any(f.startswith("--prune=") and f != "--prune=never" for f in flags) or sub == "prune":
        irreversible("deletes unreachable objects now (lost commits, dropped stashes)")
    elif sub == "reflog" and before and before[0].text in ("expire", "delete"):
        irreversible("deletes reflog entries, the record of where branches were")
    elif sub == "update-ref" and flags & {"-d"}:
        irreversible("deletes a ref")
    elif sub in ("checkout-index", "read-tree") and flags & {"-f", "--force", "-u", "--reset"}:
        _checkout_all(walk, words, line, "overwrites files of the working tree")
    elif sub == "submodule" and before and before[0].text == "deinit" and flags & {"-f", "--force"}:
        _checkout_all(walk, words, line, "removes submodule working trees")


def _dot() -> Arg:
    from pylon.guard.words import Arg as A

    return A(".", False, ".")


def _push(walk: Walk, flags: set[str], positional: list[Arg], words: str, line: int) -> None:
    refspecs = [a.text or "" for a in positional[1:]]
    forced = flags & {"-f", "--force", "--mirror", "--prune"} or any(r.startswith("+") for r in refspecs)
    deleting = flags & {"-d", "--delete"} or any(r.startswith(":") and len(r) > 1 for r in refspecs)
    if deleting:
        walk.add(Finding(IRREVERSIBLE, f"`{words}` deletes branches or tags on the remote", words, line=line))
        return
    if forced:
        walk.add(Finding(IRREVERSIBLE, f"`{words}` overwrites the remote's history (force push)", words, line=line))
        return
    lease = any(f == "--force-with-lease" or f.startswith("--force-with-lease=") or f == "--force-if-includes"
                for f in flags)
    if not lease:
        return
    targets = [r.split(":")[-1].removeprefix("refs/heads/") for r in refspecs] or [walk.ctx.branch or ""]
    risky = [t for t in targets if not t or t in cx.DEFAULT_BRANCHES or t == "HEAD"]
    if risky:
        shown = risky[0] or "the current branch (unknown)"
        walk.add(Finding(IRREVERSIBLE, f"`{words}` rewrites {shown} on the remote, a default branch", words,
                         line=line))
    else:
        walk.add(Finding(SAFE, f"`{words}`: --force-with-lease to {', '.join(targets)}, not a default branch", words,
                         line=line))


__all__ = ["PATH", "judge_git"]
