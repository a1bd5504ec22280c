"""Expected failures get stable codes, one message, a next command and no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.workspace.edits.conftest import Ed

BIN = Path(sys.executable).parent


def _clean(err: str) -> None:
    assert "Traceback" not in err and "internal-error" not in err, err


def test_symlink_loop(ed: Ed) -> None:
    (ed.root / "a").symlink_to("b")
    (ed.root / "b").symlink_to("a")
    res = ed.read_text("a")
    assert res.code == 4 and res.err.startswith("error[symlink-loop]:") and "hint: ls -l a" in res.err
    _clean(res.err)


def test_lone_surrogate_in_json_text(ed: Ed) -> None:
    ed.write("f.txt", "a\n")
    tag = ed.read("f.txt")
    request = '[{"operation": "replace", "startLine": 1, "newText": "\\ud800"}]'
    res = ed.edit_json("f.txt", tag, request)
    assert (
        res.code == 2 and res.json()["error"]["code"] == "syntax" and "lone surrogate" in res.json()["error"]["message"]
    )
    _clean(res.err)
    assert ed.bytes("f.txt") == b"a\n"


def test_unusable_state_dir(ed: Ed) -> None:
    ed.write("f.txt", "a\n")
    res = ed.read_text("f.txt", env={"PYLON_STATE_DIR": str(ed.root / "f.txt")})  # a file, not a folder
    assert res.code == 2 and res.err.startswith("error[bad-state-dir]:") and "export PYLON_STATE_DIR=" in res.err
    _clean(res.err)


def test_stdout_on_a_full_device(ed: Ed) -> None:
    ed.write("f.txt", "a\n")
    for extra in ([], ["--json"]):
        with open("/dev/full", "w") as full:
            proc = subprocess.run(
                [str(BIN / "pylon"), "read", "f.txt", *extra],
                cwd=ed.root,
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
            )
        assert proc.returncode == 1 and proc.stderr.startswith("error[disk-full]:"), proc.stderr
        assert proc.stderr.count("error[") == 1
        _clean(proc.stderr)


def test_stdout_closed(ed: Ed) -> None:
    ed.write("f.txt", "a\n")
    proc = subprocess.run(f"{BIN / 'pylon'} read f.txt >&-", shell=True, cwd=ed.root, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 1 and proc.stderr.startswith("error[stdout-closed]:"), proc.stderr
    _clean(proc.stderr)
    assert json.loads(ed.run("pylon", "read", "f.txt", "--json", cwd=ed.root).out)["ok"] is True
    assert os.path.exists(ed.root / "f.txt")


def _tag_of(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()[:12]  # the documented tag: never printed to the agent here


def test_lines_printed_to_a_full_device_are_not_seen(ed: Ed) -> None:
    data = ed.numbered(30).encode()
    ed.write("f.txt", data)
    # A refusal prints the unseen lines it names (and so marks them seen): one line per attempt.
    for extra, line in (([], 3), (["--json"], 4), (["--grep", "line 1"], 14)):
        with open("/dev/full", "w") as full:
            proc = subprocess.run(
                [str(BIN / "pylon"), "read", "f.txt", *extra],
                cwd=ed.root,
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
            )
        assert proc.returncode == 1 and proc.stderr.startswith("error[disk-full]:"), proc.stderr
        res = ed.edit_json("f.txt", _tag_of(data), f"replace {line}\n+changed\n")
        assert res.code == 2 and res.json()["error"]["code"] == "unseen-lines", res
        assert ed.bytes("f.txt") == data
    # Printed for real, the lines can be edited.
    tag = ed.read("f.txt", "--limit", "20")
    assert ed.edit("f.txt", tag, "replace 12\n+twelve\n").code == 0


def test_lines_not_printed_to_a_closed_stdout_are_not_seen(ed: Ed) -> None:
    data = ed.numbered(30).encode()
    ed.write("f.txt", data)
    proc = subprocess.run(f"{BIN / 'pylon'} read f.txt >&-", shell=True, cwd=ed.root, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 1 and proc.stderr.startswith("error[stdout-closed]:"), proc.stderr
    res = ed.edit_json("f.txt", _tag_of(data), "replace 5\n+five\n")
    assert res.code == 1 and res.json()["error"]["code"] == "unknown-revision", res  # nothing was recorded
    assert ed.bytes("f.txt") == data


def _edit_to_full(ed: Ed, tag: str, request: str, *args: str, stream: str) -> subprocess.CompletedProcess[str]:
    with open("/dev/full", "w") as full:
        out = full if stream == "stdout" else subprocess.PIPE
        err = full if stream == "stderr" else subprocess.PIPE
        return subprocess.run(
            [str(BIN / "pylon"), "edit", f"f.txt#{tag}", *args],
            cwd=ed.root,
            input=request,
            stdout=out,
            stderr=err,
            text=True,
        )


def test_lines_of_a_refusal_that_could_not_be_printed_are_not_seen(ed: Ed) -> None:
    data = ed.numbered(30).encode()
    ed.write("f.txt", data)
    tag = ed.read("f.txt", "--limit", "3")
    # Text mode: the refusal (with line 12 in it) goes to stderr, which is full; JSON: stdout.
    for args, stream in (((), "stderr"), (("--json",), "stdout")):
        proc = _edit_to_full(ed, tag, "replace 12\n+twelve\n", *args, stream=stream)
        assert proc.returncode == 2, proc
    # Neither refusal reached the agent, so line 12 is still unseen: refused again, and this time shown.
    again = ed.edit_json("f.txt", tag, "replace 12\n+twelve\n")
    assert again.code == 2 and again.json()["error"]["code"] == "unseen-lines", again
    assert ed.bytes("f.txt") == data
    assert ed.edit_json("f.txt", tag, "replace 12\n+twelve\n").code == 0  # shown once: now seen


def test_lines_of_edit_show_that_could_not_be_printed_are_not_seen(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(30))
    tag = ed.read("f.txt", "--limit", "3")
    proc = _edit_to_full(ed, tag, "replace 3\n+three\n", "--show", stream="stdout")
    assert proc.returncode == 1 and proc.stderr.startswith("error[disk-full]:"), proc
    data = ed.bytes("f.txt")
    assert b"three\n" in data  # the edit itself was applied; only its output was lost
    # Line 5 would have been in the --show window: it was never printed, so it is not seen.
    res = ed.edit_json("f.txt", _tag_of(data), "replace 5\n+five\n")
    assert res.code == 2 and res.json()["error"]["code"] == "unseen-lines", res
    # The control: the same --show printed for real makes line 5 editable.
    ed.write("f.txt", ed.numbered(30))
    tag = ed.read("f.txt", "--limit", "3")
    shown = ed.edit("f.txt", tag, "replace 3\n+three\n", "--show")
    assert shown.code == 0 and "5" in shown.out, shown
    assert ed.edit_json("f.txt", _tag_of(ed.bytes("f.txt")), "replace 5\n+five\n").code == 0
