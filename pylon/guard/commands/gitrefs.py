"""git commands that delete or move refs, and pushes.

`git stash drop|clear|pop`, `git branch -D` (or `-d -f`, `-M`/`-C`, `-f` over an existing branch),
`git tag -d|-f`, `git update-ref`: reversible (a REFS target names the refs, for the note); the state
kept before every command holds every ref and the stash, and `ws undo` puts them back. A push that
overwrites or deletes on the remote is irreversible: no kept state of this checkout gives the remote
back (`--force-with-lease` to a branch that is not a default one is the spec's exception).
"""

from __future__ import annotations

from pylon.guard import context as cx
from pylon.guard.verdict import IRREVERSIBLE, REFS, REVERSIBLE, SAFE, Finding, Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg

STASH = "refs/stash"  # the whole stash (every entry, in order, with its message)
REMOTES = "refs/remotes/"  # every remote-tracking ref


def judge(walk: Walk, sub: str, flags: set[str], before: list[Arg], words: str, line: int) -> bool:
    """Judge `sub` when it is one of the forms that delete or move refs; False when it is not one."""
    rule = _RULES.get(sub)
    if rule is None:
        return False
    refs = rule(flags, [a.text for a in before])
    if refs is None:
        return False
    what, prefix, names = refs
    if sub == "push":
        push(walk, flags, before, words, line)
        return True
    full = _named(walk, names, prefix, words, line)
    walk.add(Finding(REVERSIBLE, f"`{words}` {what}", words, [Target(REFS, "", tuple(full))], line=line))
    return True


def _stash(flags: set[str], names: list[str | None]) -> tuple[str, str, list[str | None]] | None:
    action = names[0] if names else None
    what = {
        "drop": "deletes a stash entry",
        "clear": "deletes every stash entry",
        "pop": "applies the top stash entry and deletes it",
    }.get(str(action))
    return (what, "", [STASH]) if what else None


def _branch(flags: set[str], names: list[str | None]) -> tuple[str, str, list[str | None]] | None:
    prefix = REMOTES if flags & {"-r", "--remotes"} else "refs/heads/"
    forced = bool(flags & {"-f", "--force"})
    if flags & {"-D"} or (flags & {"-d", "--delete"} and forced):
        return "force-deletes branches", prefix, names
    if flags & {"-M", "-C"} or (flags & {"-m", "-c", "--move", "--copy"} and forced):
        return "overwrites an existing branch", "refs/heads/", names[-1:]
    if forced and names and not flags & {"-d", "--delete", "-m", "-c", "--move", "--copy", "-l", "--list"}:
        return "moves an existing branch", "refs/heads/", names[:1]
    return None


def _tag(flags: set[str], names: list[str | None]) -> tuple[str, str, list[str | None]] | None:
    if flags & {"-d", "--delete"}:
        return "deletes tags", "refs/tags/", names
    if flags & {"-f", "--force"} and names:
        return "moves an existing tag", "refs/tags/", names[:1]
    return None


def _update_ref(flags: set[str], names: list[str | None]) -> tuple[str, str, list[str | None]] | None:
    if flags & {"--stdin"}:
        return "changes the refs named on its input", "", [None]
    return ("deletes a ref" if flags & {"-d"} else "sets a ref"), "", names[:1]


def _push(flags: set[str], names: list[str | None]) -> tuple[str, str, list[str | None]] | None:
    return "", "", []


_RULES = {"stash": _stash, "branch": _branch, "tag": _tag, "update-ref": _update_ref, "push": _push}


def _named(walk: Walk, names: list[str | None], prefix: str, words: str, line: int) -> list[str]:
    """The full names of the refs given (every ref is kept, so one known only at run time is
    named as such, never a reason to ask)."""
    return [prefix + n if n is not None else "refs known only when it runs" for n in names if n != ""]


def push(walk: Walk, flags: set[str], positional: list[Arg], words: str, line: int) -> None:
    """A push changes the remote, which no kept state of this checkout gives back: one that
    overwrites or deletes what is there is asked; a plain push (fast-forward only), a dry run and
    `--force-with-lease` to a branch that is not a default one (the spec's exception) are not."""
    if flags & {"-n", "--dry-run"}:
        return  # nothing is sent
    refspecs = [a.text or "" for a in positional[1:]]
    forced = flags & {"-f", "--force", "--mirror", "--prune"} or any(r.startswith("+") for r in refspecs)
    deleting = flags & {"-d", "--delete"} or any(r.startswith(":") and len(r) > 1 for r in refspecs)
    if deleting:
        walk.add(Finding(IRREVERSIBLE, f"`{words}` deletes branches or tags on the remote", words, line=line))
        return
    if forced:  # --force wins over --force-with-lease (git pushes without the check)
        walk.add(Finding(IRREVERSIBLE, f"`{words}` overwrites the remote's history (force push)", words, line=line))
        return
    leases = [f for f in flags if f == "--force-with-lease" or f.startswith("--force-with-lease=")]
    if not leases:
        return  # --force-if-includes alone does nothing; a plain push only fast-forwards
    targets = [r.split(":")[-1].removeprefix("refs/heads/") for r in refspecs] or [walk.ctx.branch or ""]
    risky = [t for t in targets if not t or t in cx.DEFAULT_BRANCHES or t == "HEAD"]
    if not risky:
        walk.add(
            Finding(
                SAFE, f"`{words}`: --force-with-lease to {', '.join(targets)}, not a default branch", words, line=line
            )
        )
        return
    walk.add(
        Finding(
            IRREVERSIBLE,
            f"`{words}` rewrites {risky[0] or 'the current branch'} on the remote, a default "
            "branch (no kept state of this checkout gives the remote back)",
            words,
            line=line,
        )
    )
