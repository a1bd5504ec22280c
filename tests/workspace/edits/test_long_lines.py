"""Every output stays bounded, however long a line is; a cut line can be marked seen and edited."""

from __future__ import annotations

from tests.workspace.edits.conftest import Ed

BOUND = 60 * 1024  # 50 KiB of numbered lines plus the header, notes and hints


def _tag(out: str) -> str:
    return out.splitlines()[0].rsplit("#", 1)[1].rstrip("]")


def test_a_ten_megabyte_line_is_cut_everywhere_and_counts_as_seen(ed: Ed) -> None:
    huge = "x" * 10_000_000
    ed.write("f.txt", f"short\n{huge}\nend\n")
    read = ed.read_text("f.txt")
    assert read.code == 0 and len(read.out.encode()) < BOUND
    assert (
        read.out.splitlines()[2]
        == "2:" + "x" * 4096 + "[... 9995904 more characters cut; the line counts as seen, edit it whole]"
    )
    tag = _tag(read.out)
    dry = ed.edit("f.txt", tag, "replace 1\n+SHORT\n", "--dry-run")  # the diff shows line 2 as context
    assert dry.code == 0 and len(dry.out.encode()) < BOUND and "more characters cut" in dry.out, dry.out[-300:]
    echo = ed.edit("f.txt", tag, f"replace 3\n+{huge}\n")  # repeats line 2: suspicious, message bounded
    assert echo.code == 3 and len(echo.err.encode()) < BOUND
    ok = ed.edit("f.txt", tag, "replace 2\n+y\n")  # seen through the cut read: applies at once
    assert ok.code == 0, ok.err[-500:]
    assert ed.bytes("f.txt") == b"short\ny\nend\n"


def test_a_refusal_for_an_unseen_long_line_is_bounded(ed: Ed) -> None:
    huge = "z" * 10_000_000
    ed.write("f.txt", "a\n" * 10 + huge + "\n")
    tag = _tag(ed.read_text("f.txt", "--limit", "1").out)
    refused = ed.edit("f.txt", tag, "replace 11\n+q\n")
    assert refused.code == 2 and "error[unseen-lines]" in refused.err
    assert len(refused.err.encode()) + len(refused.out.encode()) < BOUND
    assert "11:" + "z" * 4096 + "[... 9995904 more characters cut" in refused.err
    assert ed.edit("f.txt", tag, "replace 11\n+q\n").code == 0  # the refusal marked it seen


def test_repeat_search_matches_the_line_regex_it_replaced() -> None:
    """The repeat count is a plain byte search now (a regex compiled from a 10 MB line took 12 s):
    on random small files it agrees with the multiline regex that defined it."""
    import random
    import re

    from pylon.workspace.edits.lines import Doc
    from pylon.workspace.edits.suspicious import _repeated_nearby, _spans

    rng = random.Random(3)
    pieces = ["x", "x,", " x", "x ", "\tx\t", "x\r", "x\r ", "xx", "y x", "", " ", "x\x0c"]
    for _ in range(3000):
        data = "\n".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        data += rng.choice(["", "\n", "\r\n"])
        doc = Doc(data.encode())
        line = rng.randint(1, max(1, doc.nlines))
        regex = re.compile(rb"^[ \t]*x[ \t]*\r?$", re.M)
        expected = sum(len(list(regex.finditer(doc.data, a, b))) for a, b in _spans(doc, [], line, line)) >= 2
        assert _repeated_nearby(doc, [], line, " x ") is expected, (data, line)
