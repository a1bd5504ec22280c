"""`pylon ws fingerprint`: a short stable digest of the checkout state.

Same state, same fingerprint: it hashes HEAD (commit and branch), the staged tree and the working
tree, so any change to tracked or untracked non-ignored content, a mode, the staged split or HEAD
changes it. Ignored files never do.
"""

from __future__ import annotations

from pylon.workspace.commits import State
from pylon.workspace.current import current_state, refresh_head
from pylon.workspace.repo import Checkout


def digest(state: State) -> str:
    text = "\0".join(
        [
            "pylon-fingerprint-1",
            state.head or "unborn",
            state.branch or "(detached)",
            state.index_tree or "unmerged",
            state.worktree,
        ]
    )
    from pylon.digest import sha256_hex  # hashlib's digest without its OpenSSL import

    return sha256_hex(text.encode())[:16]


def fingerprint(checkout: Checkout) -> dict[str, object]:
    state, source = current_state(checkout)
    if source == "watch":
        state = refresh_head(checkout, state)
    return {"fingerprint": digest(state), "source": source, **state.to_dict()}
