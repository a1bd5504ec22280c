"""Bash's quoting, decoded: backslash removal (unquoted and inside double quotes) and `$'...'`
strings (ANSI-C escapes), for the words the guard reads."""

from __future__ import annotations

_ESCAPES_C = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "v": "\v",
    "?": "?",
}


def unescape(text: str, escapable: str | None = None) -> str:
    """Backslash removal: unquoted (`escapable` None) a backslash escapes any character; inside
    double quotes only those of `escapable`. A backslash-newline is removed; a final `\\` stays."""
    if "\\" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and (escapable is None or text[i + 1] in escapable):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def unescape_dq(text: str) -> str:
    return unescape(text, '$`"\\\n')


def ansi_c(text: str) -> str:
    """Bash's $'...' decoding: the letter escapes, octal \\nnn, hex \\xHH, \\uHHHH, \\UHHHHHHHH and
    control characters \\cX, so that `$'\\x72\\x6d'` is read as the command word `rm`."""
    out, i = [], 0
    while i < len(text):
        if text[i] != "\\" or i + 1 >= len(text):
            out.append(text[i])
            i += 1
            continue
        c = text[i + 1]
        i += 2
        if c in _ESCAPES_C:
            out.append(_ESCAPES_C[c])
        elif c in "01234567":
            j = i
            while j < len(text) and j < i + 2 and text[j] in "01234567":
                j += 1
            out.append(chr(int(c + text[i:j], 8) & 0xFF))
            i = j
        elif c in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[c]
            j = i
            while j < len(text) and j < i + width and text[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i:
                out.append("\\" + c)
            else:
                code = int(text[i:j], 16)
                out.append(chr(code) if code < 0x110000 else "\ufffd")
            i = j
        elif c == "c" and i < len(text):
            out.append(chr(ord(text[i].upper()) ^ 0x40) if text[i] != "?" else "\x7f")
            i += 1
        else:
            out.append("\\" + c)
    return "".join(out)
