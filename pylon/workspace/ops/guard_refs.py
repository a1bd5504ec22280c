"""The refs a guarded git command deletes, kept by its snapshot and named again by `ws restore`.

Before `git stash drop|clear|pop`, `git branch -D`, `git tag -d`, `git update-ref -d` or a push with
`--force-with-lease`, the guard snapshot (guard_snapshot.take) records the refs the command may
remove (the classifier's REFS targets) in its commit message, one line each:

    pylon-ref: <oid> <refname>         a branch, tag or other ref (and every remote-tracking ref)
    pylon-stash: <oid> <message>       a stash entry, newest first, as `git stash list` shows them

and keeps their objects reachable under refs/pylon/guard-refs/<n>/ (the guard ref itself is
refs/pylon/guard/<n>, a ref, so nothing can be stored below it). `pylon ws restore guard-<n>`
(put_back) creates each kept ref that is gone now (a ref that exists now is left as it is: later
work is never overwritten; the result names the `git update-ref` that would), and gives the stash
back its entries in their order with their messages (`git stash store`), entries made since staying
on top. Remote-tracking refs are not written: they mirror the remote; the result names the push that
puts the remote's old tip back. A snapshot whose command touches refs only
(`pylon-guard-scope: refs`) restores no file.
"""

from __future__ import annotations

from pylon.workspace import git
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.verdict import Target

STASH = "refs/stash"
REMOTES = "refs/remotes/"


def message_lines(checkout: Checkout, targets: list[Target]) -> tuple[list[str], list[tuple[str, str]]]:
    """(commit-message lines, (anchor suffix, oid) pairs) for the refs the targets name."""
    wanted = sorted({a for t in targets if t.kind == "refs" for a in t.args})
    if not wanted:
        return [], []
    lines: list[str] = []
    anchors: list[tuple[str, str]] = []
    names = [w for w in wanted if w != STASH]
    if names:
        out = git.run(["for-each-ref", "--format=%(objectname) %(refname)", *names], cwd=checkout.root)
        for row in out.decode("utf-8", "surrogateescape").splitlines():
            oid, _, name = row.partition(" ")
            if oid and name and "\n" not in name:
                lines.append(f"pylon-ref: {oid} {name}")
                anchors.append((name, oid))
    if STASH in wanted:
        for i, (oid, subject) in enumerate(stash_entries(checkout)):
            lines.append(f"pylon-stash: {oid} {subject}")
            anchors.append((f"stash/{i}", oid))
    return lines, anchors


def stash_entries(checkout: Checkout) -> list[tuple[str, str]]:
    """(commit, message) of every stash entry, newest first (`git stash list`)."""
    code, out, _ = git.run_full(["log", "-g", "--no-abbrev-commit", "--format=%H %gs", STASH, "--"], cwd=checkout.root)
    if code != 0:
        return []  # no stash
    rows = []
    for row in out.decode("utf-8", "surrogateescape").splitlines():
        oid, _, subject = row.partition(" ")
        if oid:
            rows.append((oid, subject))
    return rows


def anchor(checkout: Checkout, number: int, anchors: list[tuple[str, str]]) -> None:
    """Keep the objects reachable under refs/pylon/guard-refs/<number>/ (one transaction)."""
    if anchors:
        from pylon.workspace.commits import update_refs
        from pylon.workspace.refs import guard_anchors_prefix

        update_refs(checkout, [(f"{guard_anchors_prefix(checkout)}{number}/{name}", oid) for name, oid in anchors])


def recorded(message: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]], bool]:
    """(refs, stash entries, refs only) recorded in a guard snapshot's commit message."""
    refs: list[tuple[str, str]] = []
    stash: list[tuple[str, str]] = []
    for line in message.splitlines():
        if line.startswith("pylon-ref: "):
            oid, _, name = line[len("pylon-ref: ") :].partition(" ")
            refs.append((name, oid))
        elif line.startswith("pylon-stash: "):
            oid, _, subject = line[len("pylon-stash: ") :].partition(" ")
            stash.append((oid, subject))
    return refs, stash, "pylon-guard-scope: refs" in message.splitlines()


def put_back(checkout: Checkout, body: str, *, dry_run: bool = False) -> dict[str, list[str]]:
    """Name again the refs and stash entries a guard snapshot kept (`body`: its commit message
    after the headers) that are gone now."""
    refs, stash, _ = recorded(body)
    done: dict[str, list[str]] = {"refs": [], "refs_kept": [], "stash": [], "remote": []}
    if not refs and not stash:
        return done
    now = _current(checkout, [name for name, _ in refs])
    create = []
    for name, oid in refs:
        if name.startswith(REMOTES):
            if now.get(name, oid) != oid and not name.endswith("/HEAD"):
                done["remote"].append(f"{name} {oid}")  # the push moved it: the remote's old tip
        elif name not in now:
            create.append(f"create {name} {oid}\n")
            done["refs"].append(name)
        elif now[name] != oid:
            done["refs_kept"].append(f"{name} {oid}")  # moved since (or by the command): left as it is
    if create and not dry_run:
        git.run(["update-ref", "--stdin"], cwd=checkout.root, input="".join(create).encode("utf-8", "surrogateescape"))
    done["stash"] = _stash_back(checkout, stash, dry_run=dry_run)
    return done


def _current(checkout: Checkout, names: list[str]) -> dict[str, str]:
    if not names:
        return {}
    out = git.run(["for-each-ref", "--format=%(objectname) %(refname)", *names], cwd=checkout.root)
    found = {}
    for row in out.decode("utf-8", "surrogateescape").splitlines():
        oid, _, name = row.partition(" ")
        found[name] = oid
    return found


def _stash_back(checkout: Checkout, kept: list[tuple[str, str]], *, dry_run: bool) -> list[str]:
    """Re-store the kept stash entries that are gone, in their order; entries made since stay on
    top. The stash is rebuilt from the oldest entry up (`git stash store` pushes on top)."""
    now = stash_entries(checkout)
    present = {oid for oid, _ in now}
    missing = [f"{oid} {subject}" for oid, subject in kept if oid not in present]
    if not missing or dry_run:
        return missing
    known = {oid for oid, _ in kept}
    newer = [(oid, subject) for oid, subject in now if oid not in known]
    final = newer + kept  # newest first
    older = final[len(final) - len(now) :] if now else []
    if [oid for oid, _ in older] == [oid for oid, _ in now] and not newer:
        todo = final[: len(final) - len(now)]  # only the newest entries are gone (drop, pop, clear)
    else:  # an entry inside the list is gone: rebuild it from the oldest up
        git.run(["update-ref", "-d", STASH], cwd=checkout.root)
        todo = final
    for oid, subject in reversed(todo):
        git.run(["stash", "store", "-m", subject, oid], cwd=checkout.root)
    return missing
