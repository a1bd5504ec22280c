"""Journal entry names and the `subject: [a, b]` list: written so they always read back exactly."""

from __future__ import annotations

import re

# <YYYY-MM-DD>-<slug>[-N].md ; slug: lower-case letters, digits and single dashes.
JOURNAL_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)\.md$")
_NEEDS_QUOTE = re.compile(r"[,:\s\[\]{}#&*!|>'\"%@`\\]")


def encode_item(item: str) -> str:
    if not item or _NEEDS_QUOTE.search(item) or item[0] in "-?" or item != item.strip():
        return '"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return item


def encode_subjects(items: list[str]) -> str:
    """`[a, "b, c", "lake:prices"]` — quoted when an item holds `,`, `:`, spaces or YAML syntax."""
    return "[" + ", ".join(encode_item(i) for i in items) + "]"


def decode_subjects(value: str) -> list[str]:
    """Read a flow list written by `encode_subjects` (or by hand: plain, '...' or "..." items).

    A bare value without brackets is one subject. Raises ValueError on malformed input.
    """
    text = value.strip()
    if not text:
        return []
    if not text.startswith("["):
        return [_unquote(text)]
    if not text.endswith("]"):
        raise ValueError("subject list is not closed with ]")
    inner = text[1:-1]
    items: list[str] = []
    i, n = 0, len(inner)
    while i < n:
        while i < n and inner[i] in " \t":
            i += 1
        if i >= n:
            break
        if inner[i] in "\"'":
            quote_ch = inner[i]
            j = i + 1
            buf: list[str] = []
            while j < n:
                ch = inner[j]
                if quote_ch == '"' and ch == "\\" and j + 1 < n:
                    buf.append(inner[j + 1])
                    j += 2
                    continue
                if ch == quote_ch:
                    if quote_ch == "'" and j + 1 < n and inner[j + 1] == "'":
                        buf.append("'")
                        j += 2
                        continue
                    break
                buf.append(ch)
                j += 1
            else:
                raise ValueError("a quoted subject is not closed")
            items.append("".join(buf))
            j += 1
            while j < n and inner[j] in " \t":
                j += 1
            if j < n and inner[j] != ",":
                raise ValueError("text after a quoted subject")
            i = j + 1
        else:
            j = inner.find(",", i)
            j = n if j < 0 else j
            items.append(inner[i:j].strip())
            i = j + 1
    return [item for item in items if item]


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return decode_subjects(f"[{text}]")[0]
    return text
