"""The one note of a shell command whose reading says it destroys something inside the checkout: what
it is about to change as far as pylon can tell, every path named, and the way back (`pylon ws undo`
right after; `pylon ws restore op-N PATH...` later). Also the one reason to ask instead: it would
destroy ignored data the kept state could not hold (over the budget).
"""

from __future__ import annotations

import shlex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.verdict import Result, Target

MANY = 20  # more paths than this are named by their first folder (each named, none left out)


def _paths(root: str, targets: list[Target]) -> tuple[list[str], list[str]]:
    """(removed or overwritten, uncommitted changes discarded) root-relative paths."""
    from pylon.workspace.ops.guard_op import destroyed, discarded
    from pylon.workspace.repo import locate

    checkout = locate(root)
    return destroyed(checkout, targets), discarded(checkout, targets)


def _collapsed(paths: list[str]) -> list[str]:
    if len(paths) <= MANY:
        return paths
    tops = list(dict.fromkeys(p.split("/", 1)[0] + ("/" if "/" in p else "") for p in paths))
    return tops


def _shown(paths: list[str]) -> str:
    return " ".join(shlex.quote(p) for p in paths)


def told(root: str, result: Result, seq: int) -> str:
    """The note for the agent and the person (additionalContext)."""
    targets = result.targets
    gone, changed = _paths(root, targets)
    refs = sorted({a for t in targets if t.kind == "refs" for a in t.args})
    parts = []
    if gone:
        parts.append(f"it removes or overwrites {_shown(_collapsed(gone))}")
    if changed:
        parts.append(f"it discards the uncommitted changes of {_shown(_collapsed(changed))}")
    named = [r for r in refs if r != "refs/stash"]
    if named:
        parts.append("it deletes or moves " + ", ".join(named))
    if "refs/stash" in refs:
        parts.append("it changes the stash")
    if any(t.kind == "checkout" for t in targets):
        parts.append("it may move HEAD")
    what = "; ".join(parts) or "what it changes is known only once it has run"
    paths = _collapsed(sorted(set(gone) | set(changed)))
    back = "`pylon ws undo` right after brings it all back"
    if paths:
        back += f" (later: `pylon ws restore op-{seq} {_shown(paths)}`)"
    return f"pylon: the checkout's state before this command is kept (op {seq}): {what}. {back}."


def unkeepable(root: str, targets: list[Target], not_kept: list[list[object]] | None) -> str:
    """Why to ask first ("" for no reason): the command would destroy what no kept state holds: a
    repository of its own (its `.git`), a FIFO, socket or device below the paths it removes, or
    ignored data over the budget (`not_kept` of the state kept; None: judged by the budget alone)."""
    from pylon.workspace.ops.guard_snapshot import reached
    from pylon.workspace.repo import locate

    paths = [p for p in reached(locate(root), [t for t in targets if t.kind == "path"]) if p not in ("", ".")]
    if paths:
        from pylon.workspace import exact

        found = exact.scan(root, paths).under(paths)
        lost = [f"{p}/.git (a repository of its own)" for p in found.nested] + found.special
        if any(p == ".git" or p.startswith(".git/") for p in paths):
            lost += _outside_store(root)
        if lost:
            return (
                "pylon cannot keep what this command would destroy, so `pylon ws undo` could not bring it back: "
                + ", ".join(lost)
            )
    if not_kept is None:
        not_kept = _over(root, targets)
    return over_budget(root, targets, not_kept)


def _outside_store(root: str) -> list[str]:
    """What a removal of the checkout's .git destroys that the store's copy does not hold."""
    import os

    found = []
    for name, why in (("modules", "submodules' repositories"), ("lfs", "large file content")):
        folder = os.path.join(root, ".git", name)
        if os.path.isdir(folder) and os.listdir(folder):
            found.append(f".git/{name} ({why}, not kept)")
    return found


def _over(root: str, targets: list[Target]) -> list[list[object]]:
    """The ignored files below what the command removes that the budget would leave out (for `guard
    check`, which keeps nothing)."""
    import os

    from pylon.guard.policy import keep_budget
    from pylon.workspace.ops.guard_snapshot import removed_files
    from pylon.workspace.repo import locate

    file_max, total_max = keep_budget(root)
    out: list[list[object]] = []
    total = 0
    for rel in removed_files(locate(root), [t for t in targets if t.kind in ("path", "find", "git-clean")]):
        try:
            size = os.lstat(os.path.join(root, rel)).st_size
        except OSError:
            continue
        if size > file_max:
            out.append([rel, size, f"over {file_max} bytes"])
        else:
            total += size
            if total > total_max:
                out.append([rel, size, f"over the {total_max} bytes kept of ignored files"])
    return out


def over_budget(root: str, targets: list[Target], not_kept: list[list[object]]) -> str:
    """Why to ask first ("" for no reason): the command would remove or overwrite ignored data that
    the kept state could not hold."""
    if not not_kept:
        return ""
    gone, _changed = _paths(root, targets)
    hit = []
    for entry in not_kept:
        path, size, why = str(entry[0]), entry[1], entry[2] if len(entry) > 2 else ""
        if any(
            g in (".", "") or path == g or path.startswith(g.rstrip("/") + "/") or g.startswith(path + "/")
            for g in gone
        ):
            hit.append(f"{path} ({size} bytes: {why})")
    if not hit:
        return ""
    return (
        "pylon could not keep what this command would destroy, so `pylon ws undo` cannot bring it back: "
        + ", ".join(hit)
        + " (raise [keep] in .pylon/guard.toml to keep it)"
    )
