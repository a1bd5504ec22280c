"""`pylon edit`: the text form, the JSON form, one-line flags, one-snapshot semantics, output."""

from __future__ import annotations

import json
from pathlib import Path

from tests.workspace.edits.conftest import Ed


def test_text_form_all_operations_in_one_snapshot(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(8))
    tag = ed.read("f.txt")
    request = (
        "insert after 6\n+six-and-a-half\n"  # numbers all refer to the tagged revision,
        "replace 2-3\n+two\n+three\n+three-b\n"  # whatever the order of the operations
        "delete 5\n"
        "insert before 1\n+top\n"
    )
    res = ed.edit("f.txt", tag, request)
    assert res.code == 0, res
    assert ed.bytes("f.txt") == (b"top\nline 1\ntwo\nthree\nthree-b\nline 4\nline 6\nsix-and-a-half\nline 7\nline 8\n")
    new_tag = ed.read("f.txt")
    assert res.out.splitlines() == [
        f"Applied 4 operation(s) to f.txt. New revision: [f.txt#{new_tag}].",
        (
            "Line 1 is now 2, line 4 is now 6, line 6 is now 7 (and 1 more moved ranges); "
            "read them again before editing them."
        ),
    ]


def test_success_message_for_a_shift(ed: Ed) -> None:
    ed.write("src/app.py", ed.numbered(4812))
    tag = ed.read("src/app.py", "--offset", "30", "--limit", "20")
    res = ed.edit("src/app.py", tag, "replace 40-42\n+    a = 1\n+    b = 2\n+    c = 3\n+    d = 4\n")
    assert res.code == 0, res
    lines = res.out.splitlines()
    assert lines[0].startswith("Applied 1 operation(s) to src/app.py. New revision: [src/app.py#")
    assert lines[1] == "Lines 43-4812 are now 44-4813; read them again before editing them."
    assert len(lines) == 2


def test_no_second_line_when_nothing_moved(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(5))
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, "replace 3\n+changed\n")
    assert res.code == 0 and len(res.out.splitlines()) == 1


def test_plus_prefix_rules(ed: Ed) -> None:
    ed.write("f.txt", "a\nb\n")
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, "replace 1\n+\n++plus\n+ spaced\n+\ttab\n", "--allow-indent-mix")
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"\n+plus\n spaced\n\ttab\nb\n"


def test_request_crlf_is_accepted(ed: Ed) -> None:
    ed.write("f.txt", "a\nb\n")
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, b"replace 1\r\n+A\r\n")
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"A\nb\n"


def test_json_form_list_and_object(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(6))
    tag = ed.read("f.txt")
    ops = [
        {"operation": "replace", "startLine": 1, "endLine": 2, "newText": "one\ntwo\n"},
        {"operation": "delete", "startLine": 4},
        {"operation": "insert_after", "line": 6, "newText": "seven"},
        {"operation": "insert_before", "line": 5, "newText": ["x", "y"]},
        {"operation": "final_newline", "value": False},
    ]
    res = ed.edit("f.txt", tag, json.dumps(ops))
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"one\ntwo\nline 3\nx\ny\nline 5\nline 6\nseven"
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, json.dumps({"edits": [{"operation": "replace", "startLine": 3, "newText": ""}]}))
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"one\ntwo\nx\ny\nline 5\nline 6\nseven"


def test_json_form_problems_are_named(ed: Ed) -> None:
    ed.write("f.txt", "a\n")
    tag = ed.read("f.txt")
    res = ed.edit_json(
        "f.txt",
        tag,
        json.dumps([{"operation": "move", "startLine": 1}, {"operation": "replace", "startLine": 1, "newtext": "x"}]),
    )
    assert res.code == 2
    err = res.json()["error"]
    assert err["code"] == "syntax"
    assert [p["index"] for p in err["problems"]] == [1, 2]
    assert "unknown field(s) newtext" in err["problems"][1]["message"]
    res = ed.edit("f.txt", tag, "[not json")
    assert res.code == 2 and "error[syntax]" in res.err and "does not parse" in res.err


def test_one_line_flags(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(5))
    tag = ed.read("f.txt")
    res = ed.run(
        "pylon",
        "edit",
        f"f.txt#{tag}",
        "--replace",
        "2",
        "  two",
        "--delete",
        "4",
        "--insert-after",
        "5",
        "six",
        "--insert-before",
        "1",
        "zero",
        "--allow-indent-mix",
        cwd=ed.root,
    )
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"zero\nline 1\n  two\nline 3\nline 5\nsix\n"
    res = ed.run("pylon", "edit", f"f.txt#{tag}", "--delete", "x-y", cwd=ed.root)
    assert res.code == 2 and "error[syntax]" in res.err and "--delete takes a line number" in res.err


def test_repeated_one_line_flags_apply_together(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(10))
    tag = ed.read("f.txt")
    res = ed.run("pylon", "edit", f"f.txt#{tag}", "--delete", "4", "--delete", "9", cwd=ed.root)
    assert res.code == 0, res
    assert res.out.startswith("Applied 2 operation(s) to f.txt.")
    assert ed.bytes("f.txt") == ed.numbered(10).replace("line 4\n", "").replace("line 9\n", "").encode()


def test_repeated_flags_mix_kinds_in_one_snapshot(ed: Ed) -> None:
    # Every number refers to the tagged revision, whatever the other flags do to the numbering.
    ed.write("f.txt", ed.numbered(8))
    tag = ed.read("f.txt")
    res = ed.run(
        "pylon",
        "edit",
        f"f.txt#{tag}",
        "--insert-after",
        "2",
        "two and a half",
        "--delete",
        "3",
        "--insert-after",
        "6",
        "six and a half",
        "--delete",
        "7-8",
        "--insert-after",
        "0",
        "top",
        cwd=ed.root,
    )
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"top\nline 1\nline 2\ntwo and a half\nline 4\nline 5\nline 6\nsix and a half\n"


def test_repeated_replace_of_one_line_is_an_overlap(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(5))
    tag = ed.read("f.txt")
    res = ed.run("pylon", "edit", f"f.txt#{tag}", "--replace", "2", "X", "--replace", "2", "Y", cwd=ed.root)
    assert res.code == 2, res
    assert res.err.startswith(
        "error[overlap]: Operation 2 (`replace 2`): line 2 is also changed by operation 1 (`replace 2`)"
    )
    res = ed.run("pylon", "edit", f"f.txt#{tag}", "--replace", "2", "X", "--replace", "2", "Y", "--json", cwd=ed.root)
    assert res.code == 2 and [p["code"] for p in res.json()["error"]["problems"]] == ["overlap"]
    assert ed.bytes("f.txt") == ed.numbered(5).encode()


def test_repeated_flags_with_a_separate_tag(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(6))
    tag = ed.read("f.txt")
    res = ed.run(
        "pylon",
        "edit",
        "f.txt",
        "--tag",
        tag,
        "--delete",
        "1",
        "--delete",
        "6",
        "--replace",
        "3",
        "three",
        "--insert-before",
        "5",
        "four and a half",
        "--insert-before",
        "2",
        "one and a half",
        cwd=ed.root,
    )
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"one and a half\nline 2\nthree\nline 4\nfour and a half\nline 5\n"
    tag = ed.read("f.txt")
    res = ed.run("pylon", "edit", "f.txt", "--tag", tag, "--replace", "2", "X", "--replace", "2", "Y", cwd=ed.root)
    assert res.code == 2 and "error[overlap]" in res.err
    # --tag takes one value: given twice it is refused before anything runs, never last-wins.
    res = ed.run("pylon", "edit", "f.txt", "--tag", tag, "--tag", tag, "--delete", "1", cwd=ed.root)
    assert res.code == 2 and res.err.startswith("error[usage]: --tag was given twice")
    assert ed.read("f.txt") == tag


def test_tag_option_ops_file_and_hash_in_path(ed: Ed, tmp_path: Path) -> None:
    ed.write("a#b.txt", "x\ny\n")
    tag = ed.read("a#b.txt")
    ops = tmp_path / "ops.txt"
    ops.write_text("replace 2\n+Y\n")
    res = ed.run("pylon", "edit", "a#b.txt", "--tag", tag, "--ops-file", str(ops), cwd=ed.root)
    assert res.code == 0, res
    tag = ed.read("a#b.txt")
    res = ed.run("pylon", "edit", f"a#b.txt#{tag.upper()}", cwd=ed.root, input="replace 1\n+X\n")
    assert res.code == 0, res
    assert ed.bytes("a#b.txt") == b"X\nY\n"


def test_missing_tag_and_bad_tag_are_usage_errors(ed: Ed) -> None:
    ed.write("f.txt", "x\n")
    res = ed.run("pylon", "edit", "f.txt", cwd=ed.root, input="replace 1\n+y\n")
    assert res.code == 2 and res.err.startswith("error[usage]: No revision tag given for f.txt.")
    assert "hint: pylon read f.txt" in res.err
    res = ed.run("pylon", "edit", "f.txt#xyz", cwd=ed.root, input="replace 1\n+y\n")
    assert res.code == 2 and "is not a revision tag" in res.err


def test_json_output_shape(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(10))
    tag = ed.read("f.txt")
    res = ed.edit_json("f.txt", tag, "insert after 3\n+new\n")
    assert res.code == 0, res
    doc = res.json()
    assert doc["ok"] is True and doc["path"] == "f.txt" and doc["old_tag"] == tag
    assert doc["new_tag"] == ed.read("f.txt") and doc["applied"] == 1 and doc["warnings"] == []
    assert doc["line_map"] == [[1, 3, 1], [4, 10, 5]]


def test_final_newline_operation(ed: Ed) -> None:
    ed.write("f.txt", "a\nb\n")
    tag = ed.read("f.txt")
    assert ed.edit("f.txt", tag, "final-newline no\n").code == 0
    assert ed.bytes("f.txt") == b"a\nb"
    tag = ed.read("f.txt")
    assert ed.edit("f.txt", tag, "final-newline yes\n").code == 0
    assert ed.bytes("f.txt") == b"a\nb\n"


def test_dry_run_prints_diff_and_writes_nothing(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(20))
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, "replace 10\n+ten\ninsert after 12\n+extra\n", "--dry-run")
    assert res.code == 0, res
    assert res.out.splitlines() == [
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -7,9 +7,10 @@",
        " line 7",
        " line 8",
        " line 9",
        "-line 10",
        "+ten",
        " line 11",
        " line 12",
        "+extra",
        " line 13",
        " line 14",
        " line 15",
        f"[dry run: 2 operation(s) would apply to f.txt; nothing was written, #{tag} is still valid]",
    ]
    assert ed.bytes("f.txt") == ed.numbered(20).encode()
    assert ed.edit("f.txt", tag, "replace 10\n+ten\n").code == 0  # the tag is still valid


def test_dash_c_for_edit(ed: Ed) -> None:
    ed.write("sub/f.txt", "x\n")
    res = ed.run("pylon", "-C", str(ed.root / "sub"), "read", "f.txt", "--json", cwd=ed.root)
    tag = res.json()["tag"]
    res = ed.run("pylon", "-C", str(ed.root / "sub"), "edit", f"f.txt#{tag}", cwd=ed.root, input="replace 1\n+y\n")
    assert res.code == 0, res
    assert ed.bytes("sub/f.txt") == b"y\n"


def test_dry_run_json(ed: Ed) -> None:
    ed.write("f.txt", "a\nb\n")
    tag = ed.read("f.txt")
    doc = ed.edit_json("f.txt", tag, "replace 2\n+B\n", "--dry-run").json()
    assert doc["dry_run"] is True and doc["new_tag"] is None and doc["applied"] == 1
    assert doc["diff"] == "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
    assert ed.bytes("f.txt") == b"a\nb\n"


def test_help_goes_through_typer(ed: Ed) -> None:
    res = ed.run("pylon", "edit", "--help", cwd=ed.root)
    assert res.code == 0 and "--rebase" in res.out and "--allow-indent-mix" in res.out
    res = ed.run("pylon", "edit", "f.txt#0123456789ab", "--bogus", cwd=ed.root)
    assert res.code == 2 and res.err.startswith("error[usage]: No such option: --bogus")


def test_dry_run_shows_a_final_newline_change(ed: Ed) -> None:
    ed.write("f.txt", "a\nb\n")
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, "final-newline no\n", "--dry-run")
    assert res.code == 0 and "[final newline: yes -> no]" in res.out, res
    assert ed.bytes("f.txt") == b"a\nb\n"
    res = ed.edit("f.txt", tag, "replace 1\n+A\n", "--dry-run")
    assert "final newline" not in res.out
