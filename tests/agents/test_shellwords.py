"""pylon.agents.shellwords against shlex (the oracle): the same words, the same error at the same point."""

from __future__ import annotations

import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from pylon.agents.shellwords import words


def _shlex(text: str) -> tuple[list[str], str | None]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    out: list[str] = []
    try:
        for word in lexer:
            out.append(word)
    except ValueError as exc:
        return out, str(exc)
    return out, None


def _ours(text: str) -> tuple[list[str], str | None]:
    out: list[str] = []
    try:
        for word in words(text):
            out.append(word)
    except ValueError as exc:
        return out, str(exc)
    return out, None


CASES = ["", " ", "ls -la src", "git status && npm test 2>&1 | tail -20", "echo 'a b' \"c d\" e\\ f",
         "a'b'c\"d\"", "''", "\"\"", "x '' y", "echo \"a\\\"b\\\\c\\d\"", "echo 'a\\b'", "a\\", "'open", "\"open",
         "cat <<EOF", "a;b|c&&d||e", "(cd x; ls)>out 2>>err", "x=1 y=\"2 3\" cmd", "a#b # c", "\t\r\n a \n",
         "a&'b'", "'a'&b", "&\\x", "\\", "a \\\n b", "ünïcødé ß", "~/x *.py ?.c a=b", "|&;;", "<(ls)", "a\"b\\",
         "echo \"\\'\"", "\"'\" '\"'", "a\\ ", "-- -x --y=z"]


def test_known_commands_read_as_shlex_reads_them() -> None:
    for text in CASES:
        assert _ours(text) == _shlex(text), text


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab -'\"\\();<>|&\t\n\r#~=*.é")), max_size=40))
def test_random_commands_read_as_shlex_reads_them(text: str) -> None:
    assert _ours(text) == _shlex(text)
