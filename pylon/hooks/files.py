"""The guard before the agents' own file tools: what they overwrite or delete is kept first.

Claude Code's `Write`/`Edit`/`MultiEdit` (tool_input.file_path) and `NotebookEdit`
(notebook_path), and Codex's `apply_patch` (the patch text in tool_input.command; its
`*** Update File:`, `*** Delete File:`, `*** Move to:` and `*** Add File:` headers name the
files) replace files without a shell command the classifier could read. Before they run, the
paths they name that exist and hold work git cannot give back (`git status` lists them:
modified, staged, untracked or ignored) are snapshotted through the guard's own machinery
(guard_snapshot.take, as `guard-<n>`), and the answer lets the tool run with a note naming
`pylon ws restore guard-<n> PATH...`. A path that is clean, absent or outside a checkout costs
one `git status` of those paths and nothing else.

Each session keeps at most KEEP_COUNT such snapshots and none older than KEEP_DAYS, except that
the newest snapshot holding a path is never pruned (it is the last copy of that path's work).
The session's list lives in `<git dir>/pylon/hook-snapshots/<session>.json`.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pylon.agents.events import HookEvent
    from pylon.workspace.repo import Checkout

KEEP_COUNT = 20
KEEP_DAYS = 7
_PATH_KEYS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}


def tool_paths(event: HookEvent) -> list[str] | None:
    """The paths the tool call will overwrite, delete or create, as given; None when the input
    does not say (a field missing or of the wrong type)."""
    if event.tool_name == "apply_patch":
        text = next(
            (
                event.tool_input.get(k)
                for k in ("command", "patch", "input")
                if isinstance(event.tool_input.get(k), str)
            ),
            None,
        )
        if text is None:
            return None
        from pylon.agents.events import patch_paths

        return patch_paths(text)
    value = event.tool_input.get(_PATH_KEYS.get(event.tool_name, "file_path"))
    return [value] if isinstance(value, str) and value else None


def missing(event: HookEvent) -> str:
    """What a file tool's event lacks for the guard to keep what it overwrites ("" when nothing)."""
    if tool_paths(event) is None:
        field = "command (the patch)" if event.tool_name == "apply_patch" else _PATH_KEYS.get(event.tool_name, "path")
        return f"has no {field} in its tool_input"
    return ""


def judge(event: HookEvent) -> dict[str, Any]:
    """No objection; when the tool would overwrite work git cannot give back, a snapshot first and
    a note naming the restore. A snapshot that cannot be taken asks (Claude Code) or denies (Codex)."""
    from pylon.agents import answers
    from pylon.findroot import find_root

    paths = tool_paths(event) or []
    cwd = event.cwd if event.cwd and os.path.isdir(event.cwd) else os.getcwd()
    root = find_root(cwd)[0]
    if root is None or not paths:
        return {}
    from pylon.boundary import inside_checkout

    rels = inside_checkout(root, cwd, paths)  # the one boundary: nothing outside the checkout is kept
    if not rels:
        return {}
    at_risk = unrecoverable(root, rels)
    if not at_risk:
        return {}
    from pylon.errors import PylonError
    from pylon.workspace.repo import locate

    checkout = locate(root)
    from pylon.guard.policy import Policy, load
    from pylon.guard.verdict import Target
    from pylon.workspace.ops.guard_snapshot import take

    try:
        policy = load(root)
    except Exception:  # a broken policy falls back to the defaults (the shell path says why)
        policy = Policy()
    label = f"{event.tool_name} {' '.join(at_risk)}"
    try:
        snap = take(checkout, [Target("path", p) for p in at_risk], command=label, max_bytes=policy.max_bytes[0])
    except PylonError as exc:
        return _refuse(event, f"no snapshot was taken ({exc.message})")
    except Exception as exc:  # without a snapshot the overwrite must not pass silently
        return _refuse(event, f"no snapshot was taken ({type(exc).__name__}: {exc})")
    name = str(snap["name"])
    remember(checkout, event.session_id, snap, at_risk)
    import shlex

    shown = " ".join(shlex.quote(p) for p in at_risk[:10]) + (" ..." if len(at_risk) > 10 else "")
    note = (
        f"pylon guard: snapshot {name} keeps the uncommitted work in {shown} before {event.tool_name} "
        f"changes it; bring it back with `pylon ws restore {name} {shown}`"
    )
    return answers.message(note, answers.context(event, note))


def _refuse(event: HookEvent, why: str) -> dict[str, Any]:
    from pylon.agents import answers

    text = (
        f"pylon guard: {event.tool_name} would overwrite uncommitted work, and {why}. Commit or copy it "
        "first, or go ahead knowing it cannot be undone."
    )
    return answers.deny(event, text) if event.agent == "codex" else answers.ask(event, text)


def unrecoverable(root: str, rels: list[str]) -> list[str]:
    """The paths (of `rels`, relative to the checkout `root`) that exist and hold work git cannot
    give back: whatever `git status` lists for them, ignored files included (one git call for all)."""
    present = [p for p in rels if os.path.lexists(os.path.join(root, p))]
    if not present:
        return []
    from pylon.workspace import git

    out = git.run(
        [
            "status",
            "--porcelain=v1",
            "-z",
            "--ignored=matching",
            "--untracked-files=all",
            "--no-renames",
            "--",
            *present,
        ],
        cwd=root,
        env={"GIT_LITERAL_PATHSPECS": "1"},
    )
    listed = {item[3:] for item in out.decode("utf-8", "surrogateescape").split("\0") if len(item) > 3}
    return [p for p in present if p in listed or any(x.startswith(p.rstrip("/") + "/") for x in listed)]


def _record_path(checkout: Checkout, session: str) -> str:
    import hashlib

    key = hashlib.sha256((session or "no-session").encode()).hexdigest()[:16]
    return os.path.join(checkout.common_dir, "pylon", "hook-snapshots", f"{key}.json")


def remember(checkout: Checkout, session: str, snap: dict[str, object], paths: list[str]) -> None:
    """Add the snapshot to the session's list, then prune the list (best effort: the snapshot is
    taken and named in the answer whatever happens here)."""
    import json
    import time

    from pylon.atomic import replace_unsynced

    where = _record_path(checkout, session)
    try:
        items = _load(where)
        items.append({"name": snap["name"], "ref": snap["ref"], "paths": paths, "time": time.time()})
        items = prune(checkout, items, time.time())
        os.makedirs(os.path.dirname(where), exist_ok=True)
        replace_unsynced(where, (json.dumps(items, indent=1) + "\n").encode())
    except Exception:  # pruning is housekeeping
        return


def _load(where: str) -> list[dict[str, Any]]:
    import json

    try:
        with open(where, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return []
    return [d for d in data if isinstance(d, dict) and isinstance(d.get("ref"), str)] if isinstance(data, list) else []


def prune(
    checkout: Checkout, items: list[dict[str, Any]], now: float, count: int = KEEP_COUNT, days: float = KEEP_DAYS
) -> list[dict[str, Any]]:
    """Delete the refs of the session's snapshots beyond `count` or older than `days`, never the
    newest snapshot holding a given path; the list of those kept, oldest first."""
    from pylon.workspace import git

    items = sorted(items, key=lambda d: float(d.get("time") or 0))
    newest: dict[str, int] = {}
    for i, item in enumerate(items):
        for path in item.get("paths") or []:
            newest[str(path)] = i
    last_copies = set(newest.values())
    kept: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        too_old = now - float(item.get("time") or 0) > days * 86400
        too_many = len(items) - i > count
        if (too_old or too_many) and i not in last_copies:
            git.run_full(["update-ref", "-d", str(item["ref"])], cwd=checkout.root)
        else:
            kept.append(item)
    return kept
