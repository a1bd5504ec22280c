"""Byte exactness: terminators per line, CRLF/mixed, BOM, final newline, tabs, long lines, empty files."""

from __future__ import annotations

import pytest

from tests.workspace.edits.conftest import Ed

CASES = [
    # (original bytes, request, expected bytes)
    (b"a\r\nb\r\nc\r\n", "replace 2\n+B\n+B2\n", b"a\r\nB\r\nB2\r\nc\r\n"),
    (b"a\r\nb\nc\r\n", "replace 2\n+x\n", b"a\r\nx\nc\r\n"),  # a new line takes the replaced line's terminator
    (b"a\r\nb\nc\r\n", "insert after 1\n+x\n", b"a\r\nx\r\nb\nc\r\n"),  # ... an insertion its anchor's
    (b"a\r\nb\nc\r\n", "insert before 2\n+x\n", b"a\r\nx\nb\nc\r\n"),
    (b"a\r\nb\r\nc\n", "insert after 0\n+top\n", b"top\r\na\r\nb\r\nc\n"),  # no anchor: dominant style
    (b"a\nb", "insert after 2\n+c\n", b"a\nb\nc"),  # no final newline kept; old last line gains one
    (b"a\r\nb", "insert after 2\n+c\n+d\n", b"a\r\nb\r\nc\r\nd"),
    (b"a\nb", "replace 2\n+x\n+y\n", b"a\nx\ny"),
    (b"a\nb", "delete 2\n", b"a"),
    (b"a\nb\n", "delete 2\n", b"a\n"),
    (b"a\nb\n", "delete 1-2\n", b""),
    (b"\xef\xbb\xbfa\nb\n", "insert before 1\n+z\n", b"\xef\xbb\xbfz\na\nb\n"),  # BOM stays first
    (b"\xef\xbb\xbfa\n", "delete 1\n", b"\xef\xbb\xbf"),
    (b"", "insert after 0\n+first\n", b"first\n"),
    (b"", "insert after 0\n+first\nfinal-newline no\n", b"first"),
    (b"\tindented\n\t\tmore\n", "replace 2\n+\t\tchanged\n", b"\tindented\n\t\tchanged\n"),
    (b"x\n" + b"L" * 10000 + b"\ny\n", "replace 3\n+Y\n", b"x\n" + b"L" * 10000 + b"\nY\n"),
    (b"a\rb\nc\n", "replace 2\n+C\n", b"a\rb\nC\n"),  # a lone CR is content and is kept
    ("café\n€\n".encode(), "replace 2\n+€€\n", "café\n€€\n".encode()),
]


@pytest.mark.parametrize(("original", "request_text", "expected"), CASES)
def test_exact_bytes(ed: Ed, original: bytes, request_text: str, expected: bytes) -> None:
    ed.write("f.txt", original)
    tag = ed.read("f.txt")
    res = ed.edit(
        "f.txt", tag, request_text.encode("utf-8") if isinstance(request_text, str) else request_text, "--allow-echo"
    )
    assert res.code == 0, res
    assert ed.bytes("f.txt") == expected


def test_untouched_long_lines_and_crlf_survive_many_edits(ed: Ed) -> None:
    body = b"".join(
        (b"%d:" % i) + (b"z" * 5000 if i % 7 == 0 else b"v") + (b"\r\n" if i % 3 else b"\n") for i in range(1, 200)
    )
    ed.write("f.txt", body)
    tag = ed.read("f.txt")
    assert ed.read("f.txt", "--offset", "95") == tag  # the first read stopped at 50 KiB
    res = ed.edit("f.txt", tag, "replace 100\n+hundred\n")
    assert res.code == 0, res
    lines = body.split(b"\n")
    expected = b"\n".join(lines[:99] + [b"hundred" + (b"\r" if 100 % 3 else b"")] + lines[100:])
    assert ed.bytes("f.txt") == expected


def test_json_newtext_crlf_is_a_line_break_and_file_decides_terminator(ed: Ed) -> None:
    import json

    ed.write("f.txt", b"a\r\nb\r\n")
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, json.dumps([{"operation": "replace", "startLine": 1, "newText": "x\r\ny\n"}]))
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"x\r\ny\r\nb\r\n"


def test_mode_is_preserved(ed: Ed) -> None:
    path = ed.write("run.sh", "#!/bin/sh\necho hi\n")
    path.chmod(0o750)
    tag = ed.read("run.sh")
    assert ed.edit("run.sh", tag, "replace 2\n+echo bye\n").code == 0
    assert path.stat().st_mode & 0o7777 == 0o750


def test_content_ending_in_a_lone_cr_can_be_written(ed: Ed) -> None:
    ed.write("f.txt", b"a\nb")  # unterminated last line: a lone \r at its end is content
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, '[{"operation": "replace", "startLine": 2, "newText": "c\\r"}]')
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"a\nc\r"
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, b"replace 2\n+d\r\n")  # an LF request: the \r is content
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"a\nd\r"
    tag = ed.read("f.txt")
    assert ed.edit("f.txt", tag, b"replace 1\r\n+A\r\n").code == 0  # a CRLF request: \r\n is its break
    assert ed.bytes("f.txt") == b"A\nd\r"
