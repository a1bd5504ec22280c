"""Problems found in an edit request, and the error that reports all of them at once."""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any

from pylon.errors import Exit, PylonError


class Problem:
    """code: out-of-range, overlap, same-boundary, unseen-lines, syntax, line-number-prefix, suspicious-edit.

    `index` is the 1-based operation index, 0 when the problem is not tied to one operation.
    """

    __slots__ = ("code", "message", "index", "header", "extra")

    def __init__(
        self, code: str, message: str, index: int = 0, header: str = "", extra: dict[str, Any] | None = None
    ) -> None:
        self.code, self.message, self.index, self.header = code, message, index, header
        self.extra = extra or {}

    def __repr__(self) -> str:
        return f"Problem({self.code!r}, {self.message!r}, {self.index}, {self.header!r})"

    @property
    def exit_code(self) -> int:
        return Exit.SUSPICIOUS if self.code == "suspicious-edit" else Exit.USAGE

    def where(self) -> str:
        return f"operation {self.index} (`{self.header}`)" if self.index else "request"

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "header": self.header, "code": self.code, "message": self.message, **self.extra}


def request_error(
    problems: list[Problem], hint: str, extra: dict[str, Any] | None = None, tail: str = ""
) -> PylonError:
    """One error for every problem of a request: the shared code, or `bad-request` when mixed."""
    problems = sorted(problems, key=lambda p: p.index)  # stable: keeps each operation's own order
    codes = {p.code for p in problems}
    code = codes.pop() if len(codes) == 1 else "bad-request"
    exit_code = Exit.USAGE if any(p.exit_code == Exit.USAGE for p in problems) else Exit.SUSPICIOUS
    if len(problems) == 1:
        p = problems[0]
        message = f"{p.where()[0].upper()}{p.where()[1:]}: {p.message}" if p.index else p.message
    else:
        lines = [f"{len(problems)} problems in the request; nothing was written:"]
        for p in problems:
            lines.append(f"  - {p.where()}: [{p.code}] {p.message}")
        message = "\n".join(lines)
    if tail:
        message += "\n" + tail
    details: dict[str, Any] = {"problems": [p.to_dict() for p in problems]}
    details.update(extra or {})
    return PylonError(code, message, hint, exit_code=exit_code, details=details)
