"""Overlap refusals: every overlapping pair and every anchor inside a changed range, in one answer."""

from __future__ import annotations

import json
from typing import Any

from tests.workspace.edits.conftest import Ed


def _refused(ed: Ed, lines: int, request: str) -> tuple[str, dict[str, Any]]:
    """Send `request` to a fresh `lines`-line file as text and with --json: (stderr, JSON error).

    Both answers must be refusals with exit 2 that leave the file as it was.
    """
    ed.write("f.txt", ed.numbered(lines))
    tag = ed.read("f.txt")
    text = ed.edit("f.txt", tag, request)
    assert text.code == 2, text
    doc = ed.edit_json("f.txt", tag, request)
    assert doc.code == 2, doc
    assert doc.json()["ok"] is False
    assert "Traceback" not in text.err + doc.out + doc.err
    assert ed.bytes("f.txt") == ed.numbered(lines).encode()
    return text.err, doc.json()["error"]


def _overlaps(err: dict[str, Any]) -> list[tuple[int, str]]:
    return [(p["index"], p["message"]) for p in err["problems"] if p["code"] == "overlap"]


def test_identical_ranges_are_an_overlap_not_a_crash(ed: Ed) -> None:
    text, err = _refused(ed, 10, "replace 3\n+a\nreplace 3\n+b\n")
    assert text.startswith(
        "error[overlap]: Operation 2 (`replace 3`): line 3 is also changed by operation 1 "
        "(`replace 3`); merge them into one operation."
    )
    assert err["code"] == "overlap" and [p["index"] for p in err["problems"]] == [2]


def test_nested_range_is_an_overlap_owned_by_the_later_operation(ed: Ed) -> None:
    _, err = _refused(ed, 20, "delete 6-7\nreplace 4-12\n+x\n")
    assert err["code"] == "overlap"
    assert _overlaps(err) == [
        (2, "lines 6-7 are also changed by operation 1 (`delete 6-7`); merge them into one operation.")
    ]


def test_every_overlapping_pair_is_reported(ed: Ed) -> None:
    # 2-3 and 5-6 do not touch each other but both sit inside 1-10: two pairs, not one.
    text, err = _refused(ed, 20, "replace 1-10\n+a\nreplace 2-3\n+b\nreplace 5-6\n+c\n")
    assert text.startswith("error[overlap]: 2 problems in the request; nothing was written:\n")
    assert (
        "  - operation 2 (`replace 2-3`): [overlap] lines 2-3 are also changed by operation 1 (`replace 1-10`)" in text
    )
    assert (
        "  - operation 3 (`replace 5-6`): [overlap] lines 5-6 are also changed by operation 1 (`replace 1-10`)" in text
    )
    assert [(p["index"], p["header"]) for p in err["problems"]] == [(2, "replace 2-3"), (3, "replace 5-6")]
    assert all("operation 1 (`replace 1-10`)" in m for _, m in _overlaps(err))


def test_three_mutual_overlaps_give_three_pairs(ed: Ed) -> None:
    _, err = _refused(ed, 20, "replace 5-9\n+a\ndelete 4-6\nreplace 6\n+c\n")
    assert _overlaps(err) == [
        (2, "lines 5-6 are also changed by operation 1 (`replace 5-9`); merge them into one operation."),
        (3, "line 6 is also changed by operation 1 (`replace 5-9`); merge them into one operation."),
        (3, "line 6 is also changed by operation 2 (`delete 4-6`); merge them into one operation."),
    ]


def test_insertion_inside_an_earlier_long_range(ed: Ed) -> None:
    # The range starting nearest to the anchor (12-13) does not hold it; the long one (1-30) does.
    request = "replace 1-30\n+a\nreplace 12-13\n+b\ninsert after 20\n+c\ninsert before 30\n+d\ninsert after 31\n+e\n"
    text, err = _refused(ed, 40, request)
    assert err["code"] == "overlap"
    assert _overlaps(err) == [
        (2, "lines 12-13 are also changed by operation 1 (`replace 1-30`); merge them into one operation."),
        (
            3,
            (
                "its anchor line 20 is changed by operation 1 (`replace 1-30`); "
                "put the new lines into that operation instead."
            ),
        ),
        (
            4,
            (
                "its anchor line 30 is changed by operation 1 (`replace 1-30`); "
                "put the new lines into that operation instead."
            ),
        ),
    ]
    assert text.startswith("error[overlap]: 3 problems in the request")
    assert "operation 5" not in text  # anchored on 31, just after the range: allowed


def test_insert_right_after_a_range_and_adjacent_ranges_still_apply(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(12))
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, "replace 2-8\n+x\nreplace 9\n+y\ninsert after 1\n+top\ninsert before 10\n+z\n")
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"line 1\ntop\nx\ny\nz\nline 10\nline 11\nline 12\n"


def test_overlap_in_json_form_mixed_with_other_codes(ed: Ed) -> None:
    request = json.dumps(
        [
            {"operation": "replace", "startLine": 2, "endLine": 8, "newText": "x"},
            {"operation": "delete", "startLine": 3},
            {"operation": "insert_after", "line": 5, "newText": "y"},
            {"operation": "replace", "startLine": 11, "newText": "z"},
        ]
    )
    text, err = _refused(ed, 10, request)
    assert err["code"] == "bad-request"
    assert [(p["index"], p["code"]) for p in err["problems"]] == [(2, "overlap"), (3, "overlap"), (4, "out-of-range")]
    assert "line 3 is also changed by operation 1 (`replace 2-8`)" in err["problems"][0]["message"]
    assert "its anchor line 5 is changed by operation 1 (`replace 2-8`)" in err["problems"][1]["message"]
    assert text.startswith("error[bad-request]: 3 problems in the request; nothing was written:")
