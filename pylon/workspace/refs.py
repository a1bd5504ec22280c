"""Names under refs/pylon/: every state pylon keeps is anchored there, so `git gc` keeps it.

refs/pylon/ lives in the namespace shared by all worktrees of a repository. Baselines of the main
checkout are `refs/pylon/baselines/<NAME>`; a linked worktree's are scoped by its admin name,
`refs/pylon/worktrees/<admin-name>/baselines/<NAME>`, so two checkouts never replace each
other's `last`.
"""

from __future__ import annotations

from pylon.workspace.repo import Checkout

ROOT = "refs/pylon/"
# Checked by hand rather than with a regex: `re` costs ~9 ms of start-up on the fast path.
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def valid_name(name: str) -> bool:
    return bool(
        0 < len(name) <= 64
        and all(ch in _NAME_CHARS for ch in name)
        and not name.startswith((".", "-"))
        and ".." not in name
        and not name.endswith((".lock", "."))
    )


def check_name(name: str, what: str = "baseline") -> str:
    if not valid_name(name):
        from pylon.errors import UsageError

        raise UsageError(
            f"bad-{what}-name",
            f"{name!r} is not a valid {what} name: use 1-64 of A-Z a-z 0-9 . _ - "
            "(not starting with . or -, no '..', not ending in .lock).",
            f"pylon ws {what} my-{what}" if what == "baseline" else "pylon ws --help",
        )
    return name


def scope(checkout: Checkout) -> str:
    """The ref prefix of this checkout's own states."""
    name = checkout.worktree_name
    if name is None:
        return ROOT
    if not valid_name(name):
        import hashlib

        name = "wt-" + hashlib.sha1(name.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{ROOT}worktrees/{name}/"


def baseline_ref(checkout: Checkout, name: str) -> str:
    return f"{scope(checkout)}baselines/{name}"


def baselines_prefix(checkout: Checkout) -> str:
    return f"{scope(checkout)}baselines/"


def current_ref(checkout: Checkout) -> str:
    """Anchors the most recent capture (so its objects survive `git gc --prune=now`)."""
    return f"{scope(checkout)}current"


def session_baseline_ref(session_id: str) -> str:
    """The baseline of an owned worktree `pylon-session-<id>` (written by `pylon ws new`)."""
    return f"{ROOT}sessions/{session_id}/baseline"


def guard_prefix(checkout: Checkout) -> str:
    """This checkout's own guard snapshots: `refs/pylon/guard/` in the main checkout, under the linked
    worktree's scope otherwise (issue 28: no kept state crosses worktrees)."""
    return f"{scope(checkout)}guard/"


def guard_anchors_prefix(checkout: Checkout) -> str:
    """Where the refs a snapshot's command deletes are kept (ops/guard_refs.py), per checkout too."""
    return f"{scope(checkout)}guard-refs/"
