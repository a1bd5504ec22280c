"""The words of a shell command as `shlex` reads them, without importing shlex.

`shlex` compiles a pattern at import (for `quote`), so importing it loads `re`, and with it
enum, functools and collections: more than the rest of a canon hook's work after a shell call.
`words` gives what iterating `shlex.shlex(text, posix=True, punctuation_chars=True)` with
`whitespace_split = True` and `commenters = ""` gives (canon's reading of a command,
pylon.canon.agent.toolpaths.shell_words): the same words in the same order, and the same ValueError
at the same point for an unclosed quote or a trailing backslash. tests/agents/test_shellwords.py
checks it against shlex itself.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

_SPACE = " \t\r\n"
_PUNCTUATION = "();<>|&"
_QUOTES = "'\""


def words(text: str) -> Iterator[str]:
    """Each word of `text` in turn (operators as words of their own); ValueError as shlex raises it."""
    i, n = 0, len(text)
    while True:
        token, quoted, state, escaped_in = "", False, " ", "a"
        while True:
            ch = text[i] if i < n else ""
            i += 1
            if state == " ":
                if not ch:
                    return
                if ch in _SPACE:
                    continue
                if ch == "\\":
                    escaped_in, state = "a", "\\"
                elif ch in _PUNCTUATION:
                    token, state = ch, "c"
                elif ch in _QUOTES:
                    state = ch
                else:
                    token, state = ch, "a"
            elif state == "'" or state == '"':
                quoted = True
                if not ch:
                    raise ValueError("No closing quotation")
                if ch == state:
                    state = "a"
                elif ch == "\\" and state == '"':
                    escaped_in, state = state, "\\"
                else:
                    token += ch
            elif state == "\\":
                if not ch:
                    raise ValueError("No escaped character")
                if escaped_in in _QUOTES and ch != "\\" and ch != escaped_in:
                    token += "\\"  # inside double quotes a backslash escapes only itself and the quote
                token += ch
                state = escaped_in
            else:  # "a" (a word) or "c" (a run of punctuation)
                if not ch:
                    break
                if ch in _SPACE:
                    break
                if state == "c":
                    if ch in _PUNCTUATION:
                        token += ch
                        continue
                    i -= 1  # read again as the start of the next word
                    break
                if ch in _QUOTES:
                    state = ch
                elif ch == "\\":
                    escaped_in, state = "a", "\\"
                elif ch in _PUNCTUATION:
                    i -= 1
                    break
                else:
                    token += ch
        if not token and not quoted:
            return
        yield token
