"""git commands that delete or move refs: what the guard snapshot anchors so they can be undone.

`git stash drop|clear|pop`, `git branch -D` (or `-d -f`, `-M`/`-C` over an existing branch),
`git tag -d`, `git update-ref -d refs/...`: the objects stay in the repository but nothing names
them any more, so the next gc may delete them. The snapshot keeps the refs they remove under
refs/pylon/guard-refs/<n>/ (pylon/workspace/ops/guard_refs.py), and `ws restore guard-<n>` names them
again: these are reversible (a REFS target lists the refs to keep). `git push --force-with-lease`
(no `--force`, no `+refspec`) overwrites a remote ref only when it still is where our
remote-tracking ref says, so what it overwrites is a commit this repository has: the snapshot
keeps every remote-tracking ref, and the remote's old tip stays here to be pushed back.
"""

from __future__ import annotations

from pylon.guard import context as cx
from pylon.guard.verdict import IRREVERSIBLE, REFS, REVERSIBLE, SAFE, UNKNOWN, Finding, Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg

STASH = "refs/stash"  # the whole stash (every entry, in order, with its message)
REMOTES = "refs/remotes/"  # every remote-tracking ref


def judge(walk: Walk, sub: str, flags: set[str], before: list[Arg], words: str, line: int) -> bool:
    """Judge `sub` when it is one of the ref-deleting forms; False when it is not one of them."""
    keep = lambda why, refs: walk.add(Finding(REVERSIBLE, f"`{words}` {why}", words,  # noqa: E731
                                              [Target(REFS, "", tuple(refs))], line=line))
    names = [a.text for a in before]
    if sub == "stash":
        action = names[0] if names else None
        if action in ("drop", "clear", "pop"):
            what = {"drop": "deletes a stash entry", "clear": "deletes every stash entry",
                    "pop": "applies the top stash entry and deletes it"}[action]
            keep(f"{what} (the snapshot keeps the stash)", [STASH])
        return action in ("drop", "clear", "pop")
    if sub == "branch":
        remote = bool(flags & {"-r", "--remotes"})
        if flags & {"-D"} or (flags & {"-d", "--delete"} and flags & {"-f", "--force"}):
            refs = _named(walk, names, REMOTES if remote else "refs/heads/", words, line)
            if refs is not None:
                keep("force-deletes branches (the snapshot keeps their tips)", refs)
            return True
        if flags & {"-M", "-C"} or (flags & {"-m", "-c", "--move", "--copy"} and flags & {"-f", "--force"}):
            refs = _named(walk, names[-1:], "refs/heads/", words, line)
            if refs is not None:
                keep("overwrites an existing branch (the snapshot keeps its tip)", refs)
            return True
        return False
    if sub == "tag" and flags & {"-d", "--delete"}:
        refs = _named(walk, names, "refs/tags/", words, line)
        if refs is not None:
            keep("deletes tags (the snapshot keeps them)", refs)
        return True
    if sub == "update-ref" and flags & {"-d"}:
        ref = names[0] if names else None
        if ref is not None and ref.startswith("refs/") and not ref.startswith("refs/pylon/"):
            keep("deletes a ref (the snapshot keeps it)", [ref])
        else:
            walk.add(Finding(IRREVERSIBLE, f"`{words}` deletes a ref", words, line=line))
        return True
    if sub == "push":
        push(walk, flags, before, words, line)
        return True
    return False


def _named(walk: Walk, names: list[str | None], prefix: str, words: str, line: int) -> list[str] | None:
    """The full names of the refs given; None (and unknown) when one is known only at run time."""
    if any(n is None for n in names):
        walk.add(Finding(UNKNOWN, f"`{words}` names refs known only when it runs", words, line=line))
        return None
    return [prefix + n for n in names if n]


def push(walk: Walk, flags: set[str], positional: list[Arg], words: str, line: int) -> None:
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
        walk.add(Finding(SAFE, f"`{words}`: --force-with-lease to {', '.join(targets)}, not a default branch", words,
                         line=line))
    elif any(":" in f.partition("=")[2] for f in leases):
        # an expected value given by hand: the commit it overwrites may be one this repository lacks
        walk.add(Finding(IRREVERSIBLE, f"`{words}` rewrites {risky[0] or 'the current branch'} on the remote, a "
                         "default branch, expecting a value given by hand", words, line=line))
    else:
        shown = risky[0] or "the current branch"
        walk.add(Finding(REVERSIBLE, f"`{words}` rewrites {shown} on the remote, a default branch, only where it "
                         "still is what this repository last fetched (the snapshot keeps the remote-tracking refs, "
                         "so the old tip can be pushed back)", words, [Target(REFS, "", (REMOTES,))], line=line))
