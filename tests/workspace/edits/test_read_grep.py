"""`pylon read --grep`: matching lines with context under the current tag, bounded like a read."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from tests.workspace.edits.conftest import Ed

BIN = Path(sys.executable).parent


def _tag(out: str, name: str) -> str:
    head = out.splitlines()[0]
    assert head.startswith(f"[{name}#") and head.endswith("]"), head
    return head[len(name) + 2 : -1]


def test_matches_with_context_merge_and_separator(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(30))
    # 5 and 7 with one line of context overlap (4-6, 6-8): one group; 20 is alone.
    res = ed.read_text("f.txt", "--grep", r"^line (5|7|20)$", "--context", "1")
    assert res.code == 0, res
    assert res.out.splitlines()[1:] == [
        "4:line 4",
        "5:line 5",
        "6:line 6",
        "7:line 7",
        "8:line 8",
        "[...]",
        "19:line 19",
        "20:line 20",
        "21:line 21",
        "[3 lines match]",
    ]
    assert _tag(res.out, "f.txt") == ed.read("f.txt", "--limit", "1")
    assert res.err == ""


def test_adjacent_groups_join_without_separator_and_context_stops_at_the_ends(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(8))
    res = ed.read_text("f.txt", "--grep", r"^line [158]$", "--context", "1")
    # 1 -> 1-2, 5 -> 4-6, 8 -> 7-8: 4-6 and 7-8 touch, 1-2 and 4-6 do not.
    assert res.out.splitlines()[1:] == [
        "1:line 1",
        "2:line 2",
        "[...]",
        "4:line 4",
        "5:line 5",
        "6:line 6",
        "7:line 7",
        "8:line 8",
        "[3 lines match]",
    ]
    one = ed.read_text("f.txt", "--grep", "line 3")
    assert one.out.splitlines()[1:] == ["3:line 3", "[1 line matches]"]


def test_printed_lines_count_as_seen_and_the_others_do_not(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(40))
    res = ed.read_text("f.txt", "--grep", "^line 2[05]$", "--context", "2")
    assert res.code == 0, res
    tag = _tag(res.out, "f.txt")
    ok = ed.edit("f.txt", tag, "replace 22\n+twenty-two\nreplace 27\n+twenty-seven\n")
    assert ok.code == 0, ok
    expected = ed.numbered(40).replace("line 22\n", "twenty-two\n").replace("line 27\n", "twenty-seven\n")
    assert ed.bytes("f.txt") == expected.encode()
    ed.write("g.txt", ed.numbered(40))
    res = ed.read_text("g.txt", "--grep", "^line 20$")
    tag = _tag(res.out, "g.txt")
    refused = ed.edit("g.txt", tag, "replace 21\n+x\n")
    assert refused.code == 2, refused
    assert refused.err.startswith(
        "error[unseen-lines]: Operation 1 (`replace 21`): line 21 was not shown under this tag"
    )
    assert ed.bytes("g.txt") == ed.numbered(40).encode()
    assert ed.edit("g.txt", tag, "replace 20\n+twenty\n").code == 0


def test_output_is_bounded_and_the_next_command_really_continues(ed: Ed) -> None:
    ed.write("f.txt", "".join(f"hit {i}\nmiss {i}\n" for i in range(1, 2501)))  # 5000 lines, 2500 matches
    res = ed.read_text("f.txt", "--grep", "^hit", "--context", "1")
    assert res.code == 0, res
    lines = res.out.splitlines()
    assert len(lines) == 1 + 2000 + 1  # the line budget of any read; the groups touch, so no `[...]`
    assert lines[1] == "1:hit 1" and lines[2000] == "2000:miss 1000"
    assert lines[-1] == (
        "[2500 lines match; shown: the 1000 in lines 1-2000; "
        "next: pylon read f.txt --grep '^hit' --context 1 --offset 2001]"
    )
    tag = _tag(res.out, "f.txt")
    nxt = shlex.split(lines[-1].split("next: ", 1)[1][:-1])
    assert nxt[:2] == ["pylon", "read"]
    more = ed.run(*nxt, cwd=ed.root)
    assert more.code == 0, more
    rest = more.out.splitlines()
    assert rest[0] == f"[f.txt#{tag}]"
    assert rest[1] == "2001:hit 1001" and rest[2000] == "4000:miss 2000"
    third = ed.run(*shlex.split(rest[-1].split("next: ", 1)[1][:-1]), cwd=ed.root).out.splitlines()
    assert third[1] == "4001:hit 2001" and third[-2] == "5000:miss 2500"
    assert third[-1] == "[2500 lines match; shown: the 500 in lines 4001-5000]"
    # Everything printed by the three calls is seen: an edit spanning the cut points applies.
    done = ed.edit("f.txt", tag, "delete 1999-2002\ndelete 3999-4002\n")
    assert done.code == 0, done


def test_byte_budget_and_limit_cut_the_output(ed: Ed) -> None:
    ed.write("wide.txt", "".join(f"{i:04d} " + "x" * 195 + "\n" for i in range(1, 601)))  # 600 lines of 200 chars
    res = ed.read_text("wide.txt", "--grep", "x")
    lines = res.out.splitlines()
    printed = list(lines[1:-1])
    assert 200 < len(printed) < 300  # 50 KiB of output, not 2000 lines
    assert sum(len(line) + 1 for line in printed) <= 50 * 1024
    last = int(printed[-1].split(":", 1)[0])
    assert lines[-1] == (
        f"[600 lines match; shown: the {last} in lines 1-{last}; "
        f"next: pylon read wide.txt --grep x --offset {last + 1}]"
    )
    res = ed.read_text("wide.txt", "--grep", "^00[0-9][05] ", "--limit", "3")
    assert [line.split(":")[0] for line in res.out.splitlines()[1:-1]] == ["5", "[...]", "10", "[...]", "15"]
    assert res.out.splitlines()[-1] == (
        "[19 lines match; shown: the 3 in lines 1-15; "
        "next: pylon read wide.txt --grep '^00[0-9][05] ' --limit 3 --offset 16]"
    )


def test_offset_searches_from_line_n_and_keeps_context_of_a_match_just_above(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(30))
    res = ed.read_text("f.txt", "--grep", "^line (9|12)$", "--context", "2", "--offset", "10")
    assert res.out.splitlines()[1:] == [
        "10:line 10",
        "11:line 11",
        "12:line 12",
        "13:line 13",
        "14:line 14",
        "[2 lines match; shown: the 1 in lines 10-30]",
    ]
    res = ed.read_text("f.txt", "--grep", "^line 9$", "--offset", "20")
    assert res.out.splitlines()[1:] == ["[1 line matches; none in lines 20-30]"]
    past = ed.read_text("f.txt", "--grep", "x", "--offset", "31")
    assert past.code == 2 and past.err.startswith("error[out-of-range]: --offset 31 is past the last line")


def test_long_matching_line_is_cut_and_counts_as_seen(ed: Ed) -> None:
    ed.write("f.txt", "short\n" + "y" * 5000 + "\nend\n")
    res = ed.read_text("f.txt", "--grep", "y")
    lines = res.out.splitlines()
    assert lines[1] == "2:" + "y" * 4096 + "[... 904 more characters cut; the line counts as seen, edit it whole]"
    assert ed.edit("f.txt", _tag(res.out, "f.txt"), "replace 2\n+z\n").code == 0


def test_invalid_pattern_is_a_usage_error(ed: Ed) -> None:
    ed.write("f.txt", "a(b\n")
    res = ed.read_text("f.txt", "--grep", "a(b")
    assert res.code == 2, res
    assert res.out == ""
    assert res.err.startswith(
        "error[usage]: --grep 'a(b' is not a valid Python regular expression: "
        "missing ), unterminated subpattern at position 1."
    )
    assert "hint: Put a backslash before" in res.err
    doc = ed.run("pylon", "read", "f.txt", "--grep", "a(b", "--json", cwd=ed.root)
    assert doc.code == 2 and doc.json()["ok"] is False and doc.json()["error"]["code"] == "usage"
    escaped = ed.read_text("f.txt", "--grep", r"a\(b")
    assert escaped.code == 0 and escaped.out.splitlines()[1:] == ["1:a(b", "[1 line matches]"]


def test_context_is_checked(ed: Ed) -> None:
    ed.write("f.txt", "a\n")
    res = ed.read_text("f.txt", "--grep", "a", "--context", "51")
    assert res.code == 2 and res.err.startswith("error[usage]: --context must be at most 50, not 51.")
    res = ed.read_text("f.txt", "--context", "2")
    assert res.code == 2 and res.err.startswith("error[usage]: --context only applies with --grep.")


def test_no_match_prints_the_header_and_a_usable_tag(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(3))
    res = ed.read_text("f.txt", "--grep", "nothing here")
    assert res.code == 0, res
    assert res.out.splitlines()[1:] == ["[no line matches 'nothing here']"]
    tag = _tag(res.out, "f.txt")
    assert ed.edit("f.txt", tag, "insert after 0\n+top\n").code == 0  # line 0 needs no seen line
    assert ed.edit("f.txt", tag, "replace 1\n+x\n").code == 1  # the file has moved on since
    ed.write("e.txt", b"")
    empty = ed.read_text("e.txt", "--grep", "a")
    assert empty.code == 0 and empty.out.splitlines()[1:] == ["[empty file]", "[no line matches a]"]


def test_crlf_file_matches_text_without_terminator(ed: Ed) -> None:
    ed.write("w.txt", b"one\r\ntwo\r\nthree\r\n")
    res = ed.read_text("w.txt", "--grep", "o$")
    assert res.code == 0, res
    assert res.out.splitlines()[1:] == ["2:two", "[file has: CRLF line endings]", "[1 line matches]"]
    assert "\r" not in res.out
    done = ed.edit("w.txt", _tag(res.out, "w.txt"), "replace 2\n+TWO\n")
    assert done.code == 0, done
    assert ed.bytes("w.txt") == b"one\r\nTWO\r\nthree\r\n"
    ed.write("m.txt", b"a\r\nb\nc\r")  # mixed endings; the last line's `\r` is content
    res = ed.read_text("m.txt", "--grep", r"^[ab]$|\r$")
    assert res.out.split("\n")[1:] == [
        "1:a",
        "2:b",
        "3:c\r",
        "[file has: mixed line endings (1 CRLF, 1 LF), no final newline]",
        "[3 lines match]",
        "",
    ]


def test_json_document(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(20) + "tail")
    res = ed.run("pylon", "read", "f.txt", "--grep", "^line 1[05]$", "--context", "1", "--json", cwd=ed.root)
    assert res.code == 0, res
    doc = res.json()
    assert doc["ok"] is True and doc["path"] == "f.txt" and doc["tag"] == ed.read("f.txt", "--limit", "1")
    assert doc["total_lines"] == 21 and doc["start"] == 1 and doc["end"] == 21 and doc["next_offset"] is None
    assert doc["eol"] == "lf" and doc["final_newline"] is False and doc["bom"] is False
    assert doc["pattern"] == "^line 1[05]$" and doc["context"] == 1
    assert doc["matches"] == 2 and doc["matched"] == [10, 15]
    assert doc["groups"] == [[9, 11], [14, 16]]
    assert doc["lines"] == [[n, f"line {n}"] for n in (9, 10, 11, 14, 15, 16)]
    assert doc["cut"] == []
    cut = ed.run(
        "pylon", "read", "f.txt", "--grep", "line", "--limit", "4", "--offset", "3", "--json", cwd=ed.root
    ).json()
    assert (cut["start"], cut["end"], cut["next_offset"], cut["matches"]) == (3, 6, 7, 20)
    assert cut["matched"] == [3, 4, 5, 6] and cut["groups"] == [[3, 6]]
    none = ed.run("pylon", "read", "f.txt", "--grep", "zzz", "--json", cwd=ed.root).json()
    assert none["matches"] == 0 and none["lines"] == [] and none["groups"] == [] and none["next_offset"] is None


def _imported(ed: Ed, *args: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(BIN / "pylon"), "read", *args],
        cwd=ed.root,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_plain_read_does_not_load_the_grep_engine(ed: Ed) -> None:
    ed.write("f.txt", "x\n")
    plain = _imported(ed, "f.txt")
    assert "pylon.workspace.edits.reading" in plain
    for module in (
        "pylon.workspace.edits.grep",
        "pylon.workspace.edits.editing",
        "pylon.workspace.edits.plan",
        "shlex",
    ):
        assert module not in plain, module
    assert "pylon.workspace.edits.grep" in _imported(ed, "f.txt", "--grep", "x")


def test_a_cut_grep_names_the_command_that_continues(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(30))
    res = ed.read_text("f.txt", "--grep", "^line 1[28]$", "--context", "2", "--limit", "6")
    assert res.code == 0, res
    assert res.out.splitlines()[-1] == (
        "[2 lines match; shown: the 1 in lines 1-16; "
        "next: pylon read f.txt --grep '^line 1[28]$' --context 2 --limit 6 --offset 17]"
    )
    twice = ed.read_text("f.txt", "--grep", "x", "--limit", "6", "--limit", "6")
    assert twice.code == 2 and twice.err.startswith("error[usage]: --limit was given twice")
