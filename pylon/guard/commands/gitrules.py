"""git, judged by what each subcommand destroys (docs/guard.md has the table).

Working-tree losses inside the checkout (reset --hard, checkout -- PATH, restore, clean) are
reversible: a snapshot keeps them. Deleted branches, tags and stash entries are reversible too
(gitrefs.py: the snapshot keeps the refs); reflogs, unreachable objects and remotes are irreversible.
"""

from __future__ import annotations

import os

from pylon.guard import context as cx
from pylon.guard.commands.gitrefs import judge as judge_refs
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
        elif key == "-c":
            config_key, _, body = inline.partition("=")
            _program_setting(walk, config_key, body, state, quote(args), cmd.line)
        i += 1
    if i >= len(args):
        return
    sub = args[i].text or ""
    rest = args[i + 1 :]
    words = quote(args)
    if sub not in aliases and sub not in BUILTINS:
        found = state.aliases.get("git " + sub)
        if found is None:
            found = _configured_alias(walk, sub, cwd, elsewhere)
        if found is None:
            return  # git refuses a command it does not know
        if found == "\0external":
            walk.add(Finding(UNKNOWN, f"`{words}` runs the external command git-{sub}, which pylon does not read",
                             words, line=cmd.line))
            return
        aliases[sub] = found
    if sub in aliases:
        if state.depth > 8:
            walk.add(Finding(UNKNOWN, f"`{words}`: git aliases nested too deeply to follow", words, line=cmd.line))
            return
        state = type(state)(state.cwd, state.vars, state.depth + 1, {k: v for k, v in state.aliases.items()
                                                                      if k != "git " + sub})
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


# Short options whose value may be attached (`-bfeature`): a cluster ends at them.
_SHORT_VALUES = frozenset("bBcCmSoUn")


def _flags(rest: list[Arg]) -> tuple[set[str], list[Arg], list[Arg]]:
    """(options, words before `--`, words after `--`); short clusters split (-fdx -> -f -d -x), up to
    a letter that takes a value (`-qbfeature` is -q -b feature)."""
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
            for c in t[1:]:
                flags.add("-" + c)
                if c in _SHORT_VALUES:
                    break
            flags.add(t)
        else:
            before.append(a)
    return flags, before, after


def _checkout_all(walk: Walk, verdict_words: str, line: int, what: str) -> None:
    walk.add(Finding(REVERSIBLE, f"`{verdict_words}` {what}", verdict_words, [Target(CHECKOUT)], line=line))


def _subcommand(walk: Walk, sub: str, rest: list[Arg], state: State, words: str, line: int) -> None:
    flags, before, after = _flags(rest)
    if flags & {"--help", "-h"} and sub not in ("clean", "rm"):  # prints help (git rm -h too, but rarely asked)
        return
    irreversible = lambda why: walk.add(Finding(IRREVERSIBLE, f"`{words}` {why}", words, line=line))  # noqa: E731
    if any(f.startswith("--pathspec-from-file") for f in flags) and sub in ("checkout", "restore", "reset", "rm"):
        after = [_dot()]  # the paths are in a file: judged as the whole checkout (the snapshot keeps it all)
        if sub == "checkout":
            flags.discard("-f")
    if judge_refs(walk, sub, flags, before, words, line):
        return
    if sub == "reset":
        if flags & {"--hard", "--merge", "--keep"}:
            _checkout_all(walk, words, line, "discards uncommitted changes to tracked files")
        elif not flags & {"--soft", "-p", "--patch"}:
            _reset_mixed(walk, before + after, state, words, line)
    elif sub == "config":
        _config(walk, rest, state, words, line)
    elif sub == "checkout":
        if flags & {"-f", "--force"} and flags & {"-b", "-B", "--orphan"}:
            _checkout_all(walk, words, line, "discards uncommitted changes while creating the branch")
            return
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
            if walk.ctx.probe is None:
                _checkout_all(walk, words, line, "unstages changes (the staged content is lost)")
            else:
                _reset_mixed(walk, [], state, words, line)
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
    elif sub in ("checkout-index", "read-tree") and flags & {"-f", "--force", "-u", "--reset"}:
        _checkout_all(walk, words, line, "overwrites files of the working tree")
    elif sub == "submodule" and before and before[0].text == "deinit" and flags & {"-f", "--force"}:
        _checkout_all(walk, words, line, "removes submodule working trees")


def _reset_mixed(walk: Walk, operands: list[Arg], state: State, words: str, line: int) -> None:
    """A plain `git reset [REV] [PATH]`: the index takes REV's content, so staged content that the
    work tree no longer holds is lost (snapshotted); when nothing is staged that way, nothing is."""
    probe = walk.ctx.probe
    if probe is None:
        return
    texts = [a.text for a in operands]
    if any(t is None for t in texts):
        walk.add(Finding(UNKNOWN, f"`{words}` resets paths known only when it runs", words, line=line))
        return
    cwd = state.cwd or walk.ctx.cwd
    lost = probe("staged-unique", cwd, [t for t in texts if t is not None])
    if lost is None:
        walk.add(Finding(UNKNOWN, f"`{words}`: pylon cannot tell whether staged content would be lost", words,
                         line=line))
    elif lost:
        _checkout_all(walk, words, line, f"unstages content that the work tree no longer holds ({lost[:200]})")


# Settings whose value git runs as a shell command (or whose value names commands to run).
_PROGRAM_KEYS = ("core.pager", "core.editor", "sequence.editor", "core.sshcommand", "core.fsmonitor",
                 "core.askpass", "diff.external", "gpg.program", "credential.helper", "uploadpack.packobjectshook",
                 "interactive.difffilter", "core.alternaterefscommand", "sendemail.smtpserver", "web.browser")
_PROGRAM_SUFFIXES = (".textconv", ".command", ".driver", ".clean", ".smudge", ".process", ".program", ".cmd",
                     ".helper")


def _program_setting(walk: Walk, key: str, value: str, state: State, words: str, line: int) -> None:
    """`git -c KEY=VALUE` or `git config KEY VALUE` for a setting git runs as a command."""
    key = key.lower()
    if key == "core.hookspath" or key.startswith("include"):
        walk.add(Finding(UNKNOWN, f"`{words}` makes git run hooks or read settings from {value}, which pylon does "
                         "not read", words, line=line))
    elif key in _PROGRAM_KEYS or key.startswith("pager.") or key.endswith(_PROGRAM_SUFFIXES) \
            or key.startswith("alias."):
        if key.startswith("alias.") and not value.startswith("!"):
            return
        if key == "core.fsmonitor" and value.lower() in ("true", "false", "yes", "no", "on", "off", "1", "0", ""):
            return
        if key.startswith("pager.") and value.lower() in ("true", "false", "yes", "no", "on", "off", "1", "0"):
            return
        walk.script(value[1:] if value.startswith("!") else value, state.copy(), line)


def _config(walk: Walk, rest: list[Arg], state: State, words: str, line: int) -> None:
    """`git config [scope] [set] KEY VALUE`: an alias is remembered for later `git NAME` in the
    script; a setting git runs as a command is judged now (any later git command may run it)."""
    takes = {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}
    operands: list[Arg] = []
    i = 0
    while i < len(rest):
        text = rest[i].text
        if text is not None and text.startswith("-"):
            if text in ("--unset", "--unset-all", "--get", "--get-all", "--get-regexp", "-l", "--list", "-e",
                        "--edit", "--remove-section", "--rename-section"):
                return
            i += 2 if text in takes else 1
            continue
        operands.append(rest[i])
        i += 1
    if operands and operands[0].text in ("set",):
        operands = operands[1:]
    elif operands and operands[0].text in ("get", "list", "unset", "edit", "remove-section", "rename-section"):
        return
    if len(operands) < 2:
        return
    key, value = operands[0].text, operands[1].text
    if key is None or value is None:
        walk.add(Finding(UNKNOWN, f"`{words}` sets a git setting known only when it runs", words, line=line))
        return
    if key.lower().startswith("alias."):
        state.aliases["git " + key[len("alias."):]] = value
    _program_setting(walk, key, value, state, words, line)


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
BUILTINS = frozenset("""add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr
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
verify-pack verify-tag version whatchanged worktree write-tree filter-repo lfs flow absorb""".split())


def _dot() -> Arg:
    from pylon.guard.words import Arg as A

    return A(".", False, ".")


__all__ = ["PATH", "judge_git"]
