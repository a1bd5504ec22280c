"""Every refusal: its code, its exit status, its message, and that nothing is written."""

from __future__ import annotations

import json

from tests.workspace.edits.conftest import Ed


def test_unknown_revision(ed: Ed) -> None:
    ed.write("f.txt", "a\n")
    ed.read("f.txt")
    res = ed.edit("f.txt", "0123456789ab", "replace 1\n+x\n")
    assert res.code == 1
    assert res.err.startswith("error[unknown-revision]: #0123456789ab was not issued for f.txt in session `default`")
    assert "hint: pylon read f.txt" in res.err
    assert ed.bytes("f.txt") == b"a\n"


def test_tag_from_another_session_is_unknown(ed: Ed) -> None:
    ed.write("f.txt", "a\n")
    tag = ed.read("f.txt", env={"PYLON_SESSION": "agent-1"})
    res = ed.edit("f.txt", tag, "replace 1\n+x\n", env={"PYLON_SESSION": "agent-2"})
    assert res.code == 1 and "error[unknown-revision]" in res.err and "agent-2" in res.err
    assert ed.edit("f.txt", tag, "replace 1\n+x\n", env={"PYLON_SESSION": "agent-1"}).code == 0


def test_stale_revision_after_outside_change_summarises(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(20))
    tag = ed.read("f.txt")
    ed.write("f.txt", ed.numbered(20).replace("line 5\n", "line 5\nextra a\nextra b\n"))
    res = ed.edit_json("f.txt", tag, "replace 3\n+three\nreplace 10\n+ten\n")
    assert res.code == 1
    err = res.json()["error"]
    assert err["code"] == "stale-revision"
    assert err["changes"] == ["2 lines inserted after line 5"]
    assert [o["applies"] for o in err["operations"]] == [True, True]
    assert err["operations"][1]["rebased"] == "replace 12"
    assert err["rebase_possible"] is True and "--rebase" in err["hint"]
    assert "2 lines inserted after line 5 (20 -> 22 lines)" in err["message"]
    assert b"three" not in ed.bytes("f.txt")


def test_rebase_applies_when_targets_and_neighbours_are_unchanged(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(20))
    tag = ed.read("f.txt")
    ed.write("f.txt", ed.numbered(20).replace("line 5\n", "line 5\nextra a\nextra b\n"))
    res = ed.edit("f.txt", tag, "replace 3\n+three\nreplace 10\n+ten\n", "--rebase")
    assert res.code == 0, res
    assert res.out.splitlines()[0] == "Rebased onto the current file: `replace 10` -> `replace 12`."
    expected = ed.numbered(20).replace("line 5\n", "line 5\nextra a\nextra b\n")
    expected = expected.replace("line 3\n", "three\n").replace("line 10\n", "ten\n")
    assert ed.bytes("f.txt") == expected.encode()


def test_rebase_refused_when_a_neighbour_changed(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(10))
    tag = ed.read("f.txt")
    ed.write("f.txt", ed.numbered(10).replace("line 4\n", "LINE FOUR\n"))
    res = ed.edit("f.txt", tag, "replace 3\n+three\nreplace 8\n+eight\n", "--rebase")
    assert res.code == 1 and "error[stale-revision]" in res.err
    assert "line 4 changed" in res.err
    assert "Operation 1 (`replace 3`) cannot" in res.err and "Operation 2 (`replace 8`) can still apply" in res.err
    assert b"eight" not in ed.bytes("f.txt")


def test_stale_without_snapshot_for_big_files(ed: Ed) -> None:
    big = "x" * 100 + "\n"
    ed.write("big.txt", big * 25000)  # 2.5 MB: over the snapshot cap
    tag = ed.read("big.txt", "--limit", "5")
    ed.write("big.txt", big * 25001)
    res = ed.edit("big.txt", tag, "replace 1\n+y\n")
    assert res.code == 1 and "error[stale-revision]" in res.err and "No snapshot is kept" in res.err


def test_out_of_range(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(5))
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, "replace 4-6\n+x\n")
    assert res.code == 2
    assert res.err.startswith("error[out-of-range]: Operation 1 (`replace 4-6`): line 6 is past the last line (5).")
    res = ed.edit("f.txt", tag, "insert before 6\n+x\n")
    assert "to add lines at the end write `insert after 5`" in res.err
    res = ed.edit("f.txt", tag, "delete 0\n")
    assert res.code == 2 and "line numbers start at 1" in res.err
    res = ed.edit("f.txt", tag, "delete 4-2\n")
    assert res.code == 2 and "write `delete 2-4`" in res.err


def test_empty_file_hint(ed: Ed) -> None:
    ed.write("e.txt", "")
    tag = ed.read("e.txt")
    res = ed.edit("e.txt", tag, "replace 1\n+x\n")
    assert res.code == 2 and "add lines with `insert after 0`" in res.err


def test_overlap_and_same_boundary(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(20))
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, "replace 3-5\n+x\ndelete 5-6\n")
    assert res.code == 2 and res.err.startswith(
        "error[overlap]: Operation 2 (`delete 5-6`): line 5 is also changed by operation 1"
    )
    res = ed.edit("f.txt", tag, "replace 3-5\n+x\ninsert after 4\n+y\n")
    assert res.code == 2 and "error[overlap]" in res.err and "its anchor line 4 is changed by operation 1" in res.err
    res = ed.edit("f.txt", tag, "insert after 7\n+a\ninsert before 8\n+b\n")
    assert res.code == 2 and res.err.startswith("error[same-boundary]: Operation 2 (`insert before 8`)")
    assert "merge both into one insertion" in res.err
    res = ed.edit("f.txt", tag, "replace 3-4\n+x\nreplace 5-6\n+y\n")  # adjacent but disjoint: fine
    assert res.code == 0, res


def test_every_problem_is_reported_together(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(10))
    tag = ed.read("f.txt", "--limit", "8")
    request = "replace 2\n+ok\nreplace 11\n+x\nfrobnicate 3\ninsert after 9\n+y\nreplace 5-6\n+a\ndelete 6\n"
    res = ed.edit_json("f.txt", tag, request)
    assert res.code == 2
    err = res.json()["error"]
    assert err["code"] == "bad-request"
    codes = sorted(p["code"] for p in err["problems"])
    assert codes == ["out-of-range", "overlap", "syntax", "unseen-lines"]
    text = ed.edit("f.txt", tag, request)  # line 9 was printed by the first refusal: now seen
    assert text.err.startswith("error[bad-request]: 3 problems in the request; nothing was written:")
    assert "  - operation 2 (`replace 11`): [out-of-range] line 11 is past the last line (10)." in text.err
    assert ed.bytes("f.txt") == ed.numbered(10).encode()


def test_unseen_lines_are_printed_marked_seen_and_retry_works(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(100))
    tag = ed.read("f.txt", "--limit", "10")
    res = ed.edit_json("f.txt", tag, "replace 50-51\n+x\n")
    assert res.code == 2
    err = res.json()["error"]
    assert err["code"] == "unseen-lines" and err["unseen"] == [[50, "line 50"], [51, "line 51"]]
    res = ed.edit("f.txt", tag, "replace 60\n+y\n")
    assert res.code == 2
    assert f"Those lines, now marked seen under #{tag}:\n[f.txt#{tag}]\n60:line 60" in res.err
    assert f"send the same request again with #{tag}" in res.err
    assert ed.edit("f.txt", tag, "replace 60\n+y\n").code == 0


def test_unseen_listing_is_capped_at_40(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(200))
    tag = ed.read("f.txt", "--limit", "1")
    res = ed.edit_json("f.txt", tag, "delete 100-199\n")
    err = res.json()["error"]
    assert len(err["unseen"]) == 40 and err["unseen"][0] == [100, "line 100"]
    assert "[60 more unseen lines not shown; pylon read f.txt --offset 140]" in err["message"]


def test_syntax_errors(ed: Ed) -> None:
    ed.write("f.txt", "a\nb\n")
    tag = ed.read("f.txt")
    cases = {
        "+x\n": "is a `+` line before any operation header",
        "replace 1\n": "it has no `+` lines; to remove lines write `delete 1`",
        "insert after 1\n": "it has no `+` lines to insert",
        "delete 1\n+x\n": "`delete` takes no `+` lines",
        "replace 1\n+a\n\n+b\n": "empty inside new text; write an empty new line as a bare `+`",
        "": "the request is empty",
    }
    for request, expected in cases.items():
        res = ed.edit("f.txt", tag, request)
        assert res.code == 2, (request, res)
        assert expected in res.err, (request, res.err)
        assert "error[syntax]" in res.err
    assert ed.bytes("f.txt") == b"a\nb\n"


def test_line_number_prefix(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(10))
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, "replace 4-5\n+4:line four\n+5:line five\n")
    assert res.code == 2 and res.err.startswith("error[line-number-prefix]: Operation 1 (`replace 4-5`)")
    res = ed.edit("f.txt", tag, "replace 4\n4:line four\n")
    assert res.code == 2 and "error[" in res.err and "looks copied from `pylon read` output" in res.err
    ed.write("g.yaml", "1: one\n2: two\n")  # a file that really holds such lines may get more of them
    tag = ed.read("g.yaml")
    assert ed.edit("g.yaml", tag, "replace 2\n+2: zwei\n").code == 0


def test_suspicious_echo_and_overrides(ed: Ed) -> None:
    ed.write("f.py", "def f():\n    a = 1\n    b = 2\n    return a\n")
    tag = ed.read("f.py")
    res = ed.edit("f.py", tag, "replace 2-3\n+def f():\n+    a = 10\n")
    assert res.code == 3 and res.err.startswith(
        "error[suspicious-edit]: Operation 1 (`replace 2-3`): its first new line repeats line 1"
    )
    res = ed.edit("f.py", tag, "replace 3\n+    b = 20\n+    return a\n")
    assert res.code == 3 and "its last new line repeats line 4 just below" in res.err
    assert ed.bytes("f.py") == b"def f():\n    a = 1\n    b = 2\n    return a\n"
    res = ed.edit("f.py", tag, "replace 3\n+    b = 20\n+    return a\n", "--allow-echo")
    assert res.code == 0, res


def test_closing_brackets_only_warn(ed: Ed) -> None:
    ed.write("f.js", "function f() {\n  if (x) {\n    y();\n  }\n}\n")
    tag = ed.read("f.js")
    res = ed.edit("f.js", tag, "replace 3\n+    z();\n+  }\n")
    assert res.code == 0, res
    assert "warning: operation 1 (`replace 3`): its last new line `}` repeats line 4 below it." in res.err


def test_suspicious_indent_mix(ed: Ed) -> None:
    ed.write("f.py", "def f():\n    a = 1\n    b = 2\n")
    tag = ed.read("f.py")
    res = ed.edit_json("f.py", tag, "insert after 3\n+\tc = 3\n")
    assert res.code == 3
    err = res.json()["error"]
    assert err["code"] == "suspicious-edit" and "indent with tabs" in err["message"]
    assert ed.edit("f.py", tag, "insert after 3\n+\tc = 3\n", "--allow-indent-mix").code == 0


def test_no_change_exit_5_keeps_tag(ed: Ed) -> None:
    ed.write("f.txt", "a\nb\n")
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, "replace 2\n+b\n")
    assert res.code == 5 and res.err.startswith("error[no-change]: The edit leaves f.txt exactly as it was")
    assert ed.edit("f.txt", tag, "replace 2\n+B\n").code == 0


def test_cannot_edit_exit_4(ed: Ed) -> None:
    res = ed.edit("missing.txt", "0123456789ab", "replace 1\n+x\n")
    assert res.code == 4 and res.err.startswith("error[not-found]: missing.txt does not exist.")
    (ed.root / "dir").mkdir()
    res = ed.edit("dir", "0123456789ab", "replace 1\n+x\n")
    assert res.code == 4 and "error[is-directory]" in res.err


def test_read_only_file(ed: Ed) -> None:
    path = ed.write("ro.txt", "a\n")
    tag = ed.read("ro.txt")
    path.chmod(0o444)
    res = ed.edit("ro.txt", tag, "replace 1\n+x\n")
    assert res.code == 4 and "error[permission]" in res.err  # as root too (then --force writes it)
    assert path.stat().st_mode & 0o777 == 0o444 and path.read_bytes() == b"a\n"


def test_json_error_envelope_is_one_document(ed: Ed) -> None:
    ed.write("f.txt", "a\n")
    tag = ed.read("f.txt")
    res = ed.edit_json("f.txt", tag, "replace 9\n+x\n")
    assert res.code == 2 and res.err == ""
    doc = json.loads(res.out)
    assert doc["ok"] is False and doc["error"]["code"] == "out-of-range"
    assert doc["error"]["problems"][0]["index"] == 1 and doc["error"]["problems"][0]["header"] == "replace 9"


def test_block_keyword_repeat_only_warns(ed: Ed) -> None:
    ed.write("f.py", "try:\n    a()\nexcept E:\n    pass\n")
    tag = ed.read("f.py")
    res = ed.edit("f.py", tag, "replace 2\n+try:\n+        a()\n+    finally:\n+        b()\n")
    assert res.code == 0, res
    assert "warning: operation 1 (`replace 2`): its first new line `try:` repeats line 1 above it." in res.err


def test_unseen_lines_and_a_suspicious_edit_come_in_one_answer(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(30))
    tag = ed.read("f.txt", "--limit", "10")
    # Operation 1 echoes line 4 above it; operation 2 names unseen line 20.
    res = ed.edit_json("f.txt", tag, "replace 5\n+line 4\nreplace 20\n+twenty\n")
    err = res.json()["error"]
    assert res.code == 2 and err["code"] == "bad-request", err
    assert sorted(p["code"] for p in err["problems"]) == ["suspicious-edit", "unseen-lines"]
    fixed = ed.edit("f.txt", tag, "replace 5\n+five\nreplace 20\n+twenty\n")  # the resend fixes both
    assert fixed.code == 0, fixed
