"""Typed errors with stable codes, shared by every part of pylon.

Libraries raise these; the CLI renders them (text or JSON envelope) and maps them to exit codes.
Codes are kebab-case and stable: scripts and agents match on them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing (and enum) cost ms of start-up on every command; plain ints do
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Exit:
    """The one exit-code table for the whole tool (documented in docs/reference/cli.md)."""

    OK = 0
    FAILED = 1  # refused, not found, or findings
    USAGE = 2  # usage or configuration error
    SUSPICIOUS = 3  # edits: suspicious edit refused
    CANNOT_EDIT = 4  # edits: file cannot be edited
    NO_CHANGE = 5  # edits: nothing changed


class PylonError(Exception):
    """An expected failure: a stable code, a one- or two-sentence message, and a next step.

    `details` carries structured extras that the JSON envelope includes next to code/message/hint.
    """

    exit_code: int = Exit.FAILED

    def __init__(
        self,
        code: str,
        message: str,
        hint: str | None = None,
        *,
        exit_code: int | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        if exit_code is not None:
            self.exit_code = exit_code
        self.details = details or {}
        # Run by the CLI once the error has been printed (e.g. lines shown in a refusal are then
        # recorded as seen); never run when printing it failed.
        self.after_shown: Callable[[], None] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message, "hint": self.hint}
        out.update(self.details)
        return out


class UsageError(PylonError):
    """Bad arguments or configuration (exit 2)."""

    exit_code = Exit.USAGE


class NotFoundError(PylonError):
    """Something named does not exist (exit 1)."""

    exit_code = Exit.FAILED
