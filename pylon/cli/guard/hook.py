"""`pylon guard install|uninstall`: the guard's part of the one hook entry (pylon.hooks.install).

The hook's answer itself lives in pylon.hooks.guard (re-exported here for older callers).
"""

from __future__ import annotations

import os

from pylon.hooks.guard import answer, context, refusal  # noqa: F401 - the hook's library, re-exported

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class InstallArgs(Protocol):
        json: bool
        agent: str
        project: bool
        user: bool
        dry_run: bool


def install_hook(args: InstallArgs, *, remove: bool) -> int:
    from pylon.cli.hook import install_parts

    return install_parts(
        args,
        ("guard",),
        remove=remove,
        what="the guard hook",
        has="has the guard hook",
        lacks="has no guard hook",
        root=context().root or os.getcwd(),
    )
