"""Bash pathname expansion of a word: brace forms, then globs matched against the file system."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.words import Arg


def expand_braces(text: str) -> list[str]:
    """Bash brace expansion of one unquoted word ({a,b}, nested); `{x}` alone stays literal."""
    depth, start = 0, -1
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                inner = text[start + 1 : i]
                pieces, level, last = [], 0, 0
                for j, c in enumerate(inner):
                    if c == "{":
                        level += 1
                    elif c == "}":
                        level -= 1
                    elif c == "," and level == 0:
                        pieces.append(inner[last:j])
                        last = j + 1
                if not pieces:
                    continue
                pieces.append(inner[last:])
                head, tail = text[:start], text[i + 1 :]
                return [w for p in pieces for w in expand_braces(head + p + tail)]
    return [text]


def expand(arg: Arg, cwd: str) -> list[str]:
    """The paths a word names: its brace forms, each glob matched like bash (no match: literal)."""
    import glob

    assert arg.text is not None
    if not arg.glob:
        return [arg.text]
    out: list[str] = []
    for form in expand_braces(arg.text):
        if not any(c in form for c in "*?["):
            out.append(form)
            continue
        matches = sorted(glob.glob(form, root_dir=cwd) if not os.path.isabs(form) else glob.glob(form))
        out.extend(matches if matches else [form])
    return out
