"""The seen rule across edits: what the new tag allows, moved lines, --show, fresh-tag-old-numbers."""

from __future__ import annotations

from tests.workspace.edits.conftest import Ed


def test_new_tag_keeps_unmoved_lines_and_authored_lines(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(100))
    tag = ed.read("f.txt")
    res = ed.edit_json("f.txt", tag, "insert after 10\n+a\n+b\n+c\n")
    assert res.code == 0, res
    new = res.json()["new_tag"]
    assert ed.edit("f.txt", new, "replace 5\n+five\n").code == 0  # above the change: still seen


def test_fresh_tag_with_pre_edit_numbers_below_an_insertion_is_refused(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(100))
    tag = ed.read("f.txt")
    res = ed.edit_json("f.txt", tag, "insert after 10\n+a\n+b\n+c\n")
    new = res.json()["new_tag"]
    # The agent still thinks "line 50" is `line 50`, which is now line 53.
    res = ed.edit_json("f.txt", new, "replace 50\n+fifty\n")
    assert res.code == 2
    err = res.json()["error"]
    assert err["code"] == "unseen-lines"
    assert f"line 50 of #{tag} is now line 53" in err["message"]
    assert err["unseen"] == [[50, "line 47"]]  # what line 50 holds now, so the retry is informed
    assert b"fifty" not in ed.bytes("f.txt")


def test_authored_lines_can_be_edited_with_the_new_tag(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(20))
    tag = ed.read("f.txt")
    new = ed.edit_json("f.txt", tag, "replace 5\n+x\n+y\n").json()["new_tag"]
    res = ed.edit("f.txt", new, "replace 5\n+X\n")  # line 5 was replaced, so 5 means what was written
    assert res.code == 0, res
    assert ed.bytes("f.txt").splitlines()[4:7] == [b"X", b"y", b"line 6"]


def test_authored_line_at_a_moved_number_needs_confirmation(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(20))
    tag = ed.read("f.txt")
    new = ed.edit_json("f.txt", tag, "replace 5\n+x\n+y\n").json()["new_tag"]
    res = ed.edit_json("f.txt", new, "replace 6\n+Y\n")  # 6 was `line 6`, now `y`: ambiguous
    assert res.code == 2 and f"line 6 of #{tag} is now line 7" in res.json()["error"]["message"]
    assert ed.edit("f.txt", new, "replace 6\n+Y\n").code == 0  # the refusal printed it: confirmed
    assert ed.bytes("f.txt").splitlines()[4:7] == [b"x", b"Y", b"line 6"]


def test_moved_lines_must_be_read_again(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(20))
    tag = ed.read("f.txt")
    new = ed.edit_json("f.txt", tag, "delete 3\n").json()["new_tag"]
    res = ed.edit_json("f.txt", new, "replace 10\n+ten\n")
    assert res.code == 2
    assert f"line 10 of #{tag} is now line 9" in res.json()["error"]["message"]
    assert ed.read("f.txt") == new
    assert ed.edit("f.txt", new, "replace 10\n+ten\n").code == 0


def test_same_length_replace_keeps_everything_seen(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(50))
    tag = ed.read("f.txt")
    new = ed.edit_json("f.txt", tag, "replace 10\n+ten\n").json()["new_tag"]
    res = ed.edit("f.txt", new, "replace 40\n+forty\n")
    assert res.code == 0, res


def test_show_prints_changed_regions_which_count_as_seen(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(30))
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, "insert after 10\n+new\n", "--show")
    assert res.code == 0, res
    new = ed.read("f.txt", "--limit", "1")
    lines = res.out.splitlines()
    assert lines[1] == "Lines 11-30 are now 12-31; read them again before editing them."
    assert lines[2:] == [f"[f.txt#{new}]", "9:line 9", "10:line 10", "11:new", "12:line 11", "13:line 12"]
    assert ed.edit("f.txt", new, "replace 13\n+twelve\n").code == 0  # shown, so seen
    new = ed.read("f.txt", "--limit", "1")
    res = ed.edit_json("f.txt", new, "replace 20\n+x\n")  # moved and not shown: read it first
    assert res.code == 2 and res.json()["error"]["code"] == "unseen-lines"


def test_show_in_json(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(5))
    tag = ed.read("f.txt")
    doc = ed.edit_json("f.txt", tag, "replace 3\n+three\n", "--show").json()
    assert doc["shown"] == [
        {"lines": [[1, "line 1"], [2, "line 2"], [3, "three"], [4, "line 4"], [5, "line 5"]], "cut": []}
    ]


def test_show_window_makes_moved_neighbours_editable(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(30))
    tag = ed.read("f.txt")
    res = ed.edit_json("f.txt", tag, "delete 10\n", "--show")
    new = res.json()["new_tag"]
    assert ed.edit("f.txt", new, "replace 11\n+moved but shown\n").code == 0


def test_unseen_refusal_after_an_edit_names_rewritten_lines(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(30))
    tag = ed.read("f.txt")
    new = ed.edit_json("f.txt", tag, "replace 10-12\n+x\n").json()["new_tag"]
    res = ed.edit_json("f.txt", new, "replace 20\n+y\n")
    message = res.json()["error"]["message"]
    assert f"line 20 of #{tag} is now line 18" in message


def test_pre_edit_number_landing_on_a_line_you_wrote_is_refused(ed: Ed) -> None:
    ed.write("app.py", ed.numbered(13))
    tag = ed.read("app.py")
    new = ed.edit_json("app.py", tag, "replace 9-10\n+a\n+b\n+c\n+d\ninsert before 1\n+#!/bin/sh\n").json()["new_tag"]
    # Line 12 of the first read (`line 12`) is now line 15; line 12 now holds `c`, written just now.
    res = ed.edit_json("app.py", new, "replace 12\n+    return 0\n")
    assert res.code == 2
    err = res.json()["error"]
    assert err["code"] == "unseen-lines"
    assert f"line 12 of #{tag} is now line 15 (line 12 now holds a line you wrote)" in err["message"]
    assert err["unseen"] == [[12, "c"]]
    before = ed.bytes("app.py")
    assert b"return 0" not in before
    assert ed.edit("app.py", new, "replace 12\n+C\n").code == 0  # confirmed by the refusal: now it applies


def test_numbers_from_two_edits_ago_are_still_refused(ed: Ed) -> None:
    ed.write("m.txt", ed.numbered(100))
    t0 = ed.read("m.txt")
    t1 = ed.edit_json("m.txt", t0, "insert before 1\n+top\n", "--show").json()["new_tag"]
    t2 = ed.edit_json("m.txt", t1, "replace 1\n+TOP\n" + "".join(f"+{c}\n" for c in "abcdefghij")).json()["new_tag"]
    res = ed.edit_json("m.txt", t2, "replace 10\n+meant line 10 of the first read\n")
    assert res.code == 2 and res.json()["error"]["code"] == "unseen-lines"
    assert b"meant" not in ed.bytes("m.txt")


def test_show_confirms_the_lines_you_wrote(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(30))
    tag = ed.read("f.txt")
    new = ed.edit_json("f.txt", tag, "insert after 10\n+a\n+b\n", "--show").json()["new_tag"]
    assert ed.edit("f.txt", new, "replace 12\n+B\n").code == 0  # shown with its new number


def test_reading_again_clears_stale_numbers(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(30))
    tag = ed.read("f.txt")
    new = ed.edit_json("f.txt", tag, "insert after 10\n+a\n+b\n").json()["new_tag"]
    assert ed.read("f.txt") == new
    assert ed.edit("f.txt", new, "replace 12\n+B\n").code == 0


def test_the_classic_stale_number_mistake_takes_two_calls(ed: Ed) -> None:
    # New tag, number from before the previous edit: the refusal shows both the line now at that
    # number and where the intended line went, both marked seen, so the corrected call applies.
    ed.write("f.txt", ed.numbered(100))
    tag = ed.read("f.txt")
    new = ed.edit_json("f.txt", tag, "insert after 10\n+n1\n+n2\n+n3\n").json()["new_tag"]
    res = ed.edit("f.txt", new, "replace 50\n+fifty\n")  # meant old line 50, now 53
    assert res.code == 2 and "error[unseen-lines]" in res.err
    assert f"line 50 of #{tag} is now line 53" in res.err
    assert "\n50:line 47\n" in res.err and "\n53:line 50\n" in res.err, res.err
    assert "use their new numbers (50 -> 53)" in res.err
    ok = ed.edit("f.txt", new, "replace 53\n+fifty\n")
    assert ok.code == 0, ok
    assert ed.bytes("f.txt").decode().splitlines()[52] == "fifty"


def test_moved_lines_in_the_json_refusal(ed: Ed) -> None:
    ed.write("app.py", ed.numbered(13))
    tag = ed.read("app.py")
    new = ed.edit_json("app.py", tag, "replace 9-10\n+a\n+b\n+c\n+d\ninsert before 1\n+#!/bin/sh\n").json()["new_tag"]
    err = ed.edit_json("app.py", new, "replace 12\n+    return 0\n").json()["error"]
    assert err["unseen"] == [[12, "c"]] and err["moved"] == [[12, 15]]
    assert ed.edit("app.py", new, "replace 15\n+    return 0\n").code == 0
    assert ed.bytes("app.py").decode().splitlines()[14] == "    return 0"
