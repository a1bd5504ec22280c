"""The ledger: compact ranges, 32 revisions per file, tag growth, snapshots."""

from __future__ import annotations

import json
from pathlib import Path


def _ledger(isolated_env, session: str = "default") -> dict:
    files = list((Path(isolated_env["XDG_STATE_HOME"]) / "pylon" / "edits" / session).glob("*.json"))
    assert len(files) == 1
    return json.loads(files[0].read_text())


def test_ranges_merge_and_storage_stays_small(ed, isolated_env) -> None:
    ed.write("big.txt", ed.numbered(10000))
    tags = {ed.read("big.txt", "--offset", str(offset)) for offset in range(1, 10001, 2000)}
    assert len(tags) == 1
    doc = _ledger(isolated_env)
    assert doc["revisions"][0]["seen"] == [[1, 10000]]
    assert len(json.dumps(doc)) < 1000


def test_at_most_32_revisions_oldest_dropped(ed) -> None:
    tags = []
    for i in range(33):
        ed.write("f.txt", f"version {i}\n")
        tags.append(ed.read("f.txt"))
    ed.write("f.txt", "version 0\n")
    res = ed.edit("f.txt", tags[0], "replace 1\n+x\n")
    assert res.code == 1 and "error[unknown-revision]" in res.err and "keeps 32 revisions" in res.err
    ed.write("f.txt", "version 1\n")
    assert ed.edit("f.txt", tags[1], "replace 1\n+x\n").code == 0


def test_snapshot_kept_for_small_files(ed, isolated_env) -> None:
    ed.write("f.txt", "a\n")
    ed.read("f.txt")
    assert _ledger(isolated_env)["revisions"][0]["snap"] is True
    snaps = list((Path(isolated_env["XDG_STATE_HOME"]) / "pylon" / "edits" / "default").glob("*.snap"))
    assert len(snaps) == 1


def test_state_dir_override(ed, tmp_path) -> None:
    ed.write("f.txt", "a\n")
    env = {"PYLON_STATE_DIR": str(tmp_path / "state")}
    tag = ed.read("f.txt", env=env)
    assert list((tmp_path / "state" / "edits" / "default").glob("*.json"))
    assert ed.edit("f.txt", tag, "replace 1\n+b\n").code == 1  # another state dir: tag unknown there
    assert ed.edit("f.txt", tag, "replace 1\n+b\n", env=env).code == 0


def test_bad_session_name(ed) -> None:
    ed.write("f.txt", "a\n")
    res = ed.read_text("f.txt", env={"PYLON_SESSION": "a/b"})
    assert res.code == 2 and "error[bad-session]" in res.err


def test_tag_grows_when_a_prefix_is_shared() -> None:
    from pylon.workspace.edits.tag import make_tag

    a = "abcdef012345" + "0" * 52
    b = "abcdef012345" + "1" * 52
    c = "abcdef0123451111" + "2" * 48
    assert make_tag(a, []) == a[:12]
    assert make_tag(b, [a]) == b[:16]
    assert make_tag(c, [a, b]) == c[:20]


def test_longer_tag_prefix_is_accepted(ed) -> None:
    import hashlib

    ed.write("f.txt", "a\n")
    ed.read("f.txt")
    full = hashlib.sha256(b"a\n").hexdigest()
    assert ed.edit("f.txt", full[:20], "replace 1\n+b\n").code == 0
