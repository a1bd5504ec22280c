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
                    seq = _sequence(inner)
                    if seq is None:
                        continue
                    head, tail = text[:start], text[i + 1 :]
                    return [w for p in seq for w in expand_braces(head + p + tail)]
                pieces.append(inner[last:])
                head, tail = text[:start], text[i + 1 :]
                return [w for p in pieces for w in expand_braces(head + p + tail)]
    return [text]


def _sequence(inner: str) -> list[str] | None:
    """Bash's sequence expression `{a..e}`, `{1..10}`, `{01..10..2}` (None when `inner` is not one)."""
    parts = inner.split("..")
    if len(parts) not in (2, 3) or not all(parts):
        return None
    step_text = parts[2] if len(parts) == 3 else "1"
    if not step_text.lstrip("-").isdigit():
        return None
    step = abs(int(step_text)) or 1
    a, b = parts[0], parts[1]
    if all(p.lstrip("-").isdigit() for p in (a, b)):
        lo, hi = int(a), int(b)
        width = max(len(a), len(b)) if (a.lstrip("-").startswith("0") or b.lstrip("-").startswith("0")) else 0
        values = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        if len(values) > 4096:
            return None
        return [str(v).zfill(width) if width else str(v) for v in values]
    if len(a) == 1 and len(b) == 1 and a.isascii() and b.isascii():
        lo_c, hi_c = ord(a), ord(b)
        codes = range(lo_c, hi_c + 1, step) if lo_c <= hi_c else range(lo_c, hi_c - 1, -step)
        return [chr(c) for c in codes]
    return None


def _bash_brackets(form: str) -> str:
    """bash's `[^...]` (as `[!...]`) in the glob syntax Python's glob reads."""
    return form.replace("[^", "[!")


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
        pattern = _bash_brackets(form)
        matches = sorted(glob.glob(pattern, root_dir=cwd) if not os.path.isabs(pattern) else glob.glob(pattern))
        out.extend(matches if matches else [form])
    return out
