"""Surfacing state of one agent session in one project: what was shown, what waits, what changed.

One small JSON file per (session, project) under the state directory:
`<state>/canon/sessions/<session>/<sha256(project root)[:16]>.json`. Every change happens under
an exclusive flock on a lock file beside it and is written by temp file + rename, so 20 hook
processes of one session at once lose nothing and never show an article twice. A file that
cannot be read or decoded counts as a fresh session (state is derived, never worth a failure).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from pylon.canon.store import Project

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
LOCK_TIMEOUT = 10.0


def session_key(session: str) -> str:
    """A folder name for a session id: the id itself when it is a valid PYLON_SESSION, else a hash
    (an agent's id may hold anything)."""
    if 1 <= len(session) <= 128 and _SAFE.issuperset(session) and session not in (".", ".."):
        return session
    from pylon.digest import sha256_hex

    return "h-" + sha256_hex(session.encode("utf-8", "surrogatepass"))[:32]


def current_session() -> str:
    """PYLON_SESSION (validated), else `default`."""
    from pylon.state import session_name

    return session_name()


def state_file(project_root: str, session: str) -> str:
    from pylon.digest import sha256_hex
    from pylon.state import state_home

    digest = sha256_hex(os.path.realpath(project_root).encode("utf-8", "surrogatepass"))[:16]
    return os.path.join(state_home(), "canon", "sessions", session_key(session), f"{digest}.json")


def fresh(project_root: str, session: str) -> dict[str, Any]:
    return {
        "version": 1,
        "session": session,
        "project": project_root,
        "shown": {},  # address -> "capsule" | "pointer" | "read" | "written": how the agent saw it
        "spent": 0,  # capsule characters shown this session
        "pending": [],  # staged addresses not shown yet (the message cap), oldest first
        "changed": {},  # address -> asset paths changed by the agent (the reminder's list)
        "baseline": {},  # address -> digest of the article file at the latest such change
        "reminded": [],
    }  # the sets `settle` has named (sorted lists), so none is named twice


def _decode(data: bytes, project_root: str, session: str) -> dict[str, Any]:
    from pylon.agents.jsonio import loads  # not json: a hook process would pay for `re`

    try:
        state = loads(data)
    except ValueError:
        return fresh(project_root, session)
    base = fresh(project_root, session)
    if not isinstance(state, dict) or state.get("version") != 1:
        return base
    for key, empty in base.items():
        if not isinstance(state.get(key), type(empty)):
            state[key] = empty
    return state


def load(project_root: str, session: str) -> dict[str, Any]:
    """The state as it is (no lock: a reader sees the old or the new file, never a mix)."""
    try:
        with open(state_file(project_root, session), "rb") as fh:
            return _decode(fh.read(), project_root, session)
    except OSError:
        return fresh(project_root, session)


def update(project_root: str, session: str, change: Callable[[dict[str, Any]], Any]) -> Any:
    """Apply `change` to the state under the session's lock and write the result atomically.

    Returns what `change` returns. Nothing is written when the state did not change."""
    import json

    from pylon.atomic import replace_unsynced
    from pylon.locks import file_lock

    path = state_file(project_root, session)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with file_lock(path[: -len(".json")] + ".lock", timeout=LOCK_TIMEOUT, what="the canon session state"):
        try:
            with open(path, "rb") as fh:
                before = fh.read()
        except OSError:
            before = b""
        state = _decode(before, project_root, session) if before else fresh(project_root, session)
        result = change(state)
        after = json.dumps(state, ensure_ascii=False, sort_keys=True).encode("utf-8")
        if after != before:
            replace_unsynced(path, after)
    return result


def _project_root(project: Project) -> str:
    return project.root_dir


def mark_seen(project: Project, address: str, session: str | None = None) -> None:
    """`canon read` showed the whole article: it is seen (never surfaced again this session)."""

    def change(state: dict[str, Any]) -> None:
        if state["shown"].get(address) in (None, "pointer"):
            state["shown"][address] = "read"
        if address in state["pending"]:
            state["pending"].remove(address)

    update(_project_root(project), session or current_session(), change)


def mark_written(project: Project, address: str, session: str | None = None) -> None:
    """`canon write` wrote the article: the agent has it in view (never surfaced again this cycle).
    Whether the reminder is settled is the article file's own say (`settle` compares digests)."""

    def change(state: dict[str, Any]) -> None:
        state["shown"][address] = "written"
        if address in state["pending"]:
            state["pending"].remove(address)

    update(_project_root(project), session or current_session(), change)


def forget_shown(project: Project, session: str) -> None:
    """The agent's context was cleared or compacted: what it was shown is gone, so show it again
    (the changed list stays: those articles still need their update)."""

    if not os.path.exists(state_file(_project_root(project), session)):
        return  # a session that recorded nothing has nothing to forget (no lock, no file)

    def change(state: dict[str, Any]) -> None:
        state["shown"], state["spent"], state["pending"] = {}, 0, []

    update(_project_root(project), session, change)
