"""The ledger: compact ranges, 32 revisions per file, tag growth, snapshots."""

from __future__ import annotations

import hashlib
import json
import marshal
import os
from pathlib import Path

import pytest

from tests.workspace.edits.conftest import Ed, ledger_docs


def _ledger(isolated_env: dict[str, str], session: str = "default") -> dict:
    docs = ledger_docs(Path(isolated_env["XDG_STATE_HOME"]) / "pylon" / "edits" / session)
    assert len(docs) == 1
    return docs[0]


def test_ranges_merge_and_storage_stays_small(ed: Ed, isolated_env: dict[str, str]) -> None:
    ed.write("big.txt", ed.numbered(10000))
    tags = {ed.read("big.txt", "--offset", str(offset)) for offset in range(1, 10001, 2000)}
    assert len(tags) == 1
    doc = _ledger(isolated_env)
    assert doc["revisions"][0]["seen"] == [[1, 10000]]
    assert len(marshal.dumps(doc)) < 1000


def test_at_most_32_revisions_oldest_dropped(ed: Ed) -> None:
    tags = []
    for i in range(33):
        ed.write("f.txt", f"version {i}\n")
        tags.append(ed.read("f.txt"))
    ed.write("f.txt", "version 0\n")
    res = ed.edit("f.txt", tags[0], "replace 1\n+x\n")
    assert res.code == 1 and "error[unknown-revision]" in res.err and "keeps 32 revisions" in res.err
    ed.write("f.txt", "version 1\n")
    assert ed.edit("f.txt", tags[1], "replace 1\n+x\n").code == 0


def test_snapshot_kept_for_small_files(ed: Ed, isolated_env: dict[str, str]) -> None:
    ed.write("f.txt", "a\n")
    ed.read("f.txt")
    assert _ledger(isolated_env)["revisions"][0]["snap"] is True
    snaps = list((Path(isolated_env["XDG_STATE_HOME"]) / "pylon" / "edits" / "default").glob("*.snap"))
    assert len(snaps) == 1


def test_state_dir_override(ed: Ed, tmp_path: Path) -> None:
    ed.write("f.txt", "a\n")
    env = {"PYLON_STATE_DIR": str(tmp_path / "state")}
    tag = ed.read("f.txt", env=env)
    assert list((tmp_path / "state" / "edits" / "default").glob("*.ledger"))
    assert ed.edit("f.txt", tag, "replace 1\n+b\n").code == 1  # another state dir: tag unknown there
    assert ed.edit("f.txt", tag, "replace 1\n+b\n", env=env).code == 0


def test_bad_session_name(ed: Ed) -> None:
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


def test_longer_tag_prefix_is_accepted(ed: Ed) -> None:
    import hashlib

    ed.write("f.txt", "a\n")
    ed.read("f.txt")
    full = hashlib.sha256(b"a\n").hexdigest()
    assert ed.edit("f.txt", full[:20], "replace 1\n+b\n").code == 0


def _big(lines: int, width: int) -> bytes:
    return b"".join(b"%07d:" % i + b"x" * width + b"\n" for i in range(1, lines + 1))


def test_large_files_keep_a_line_index_that_later_calls_reuse(ed: Ed, isolated_env: dict[str, str]) -> None:
    ed.write("big.txt", _big(60000, 20))  # 1.7 MB
    tag = ed.read("big.txt", "--offset", "30000", "--limit", "10")
    folder = Path(isolated_env["XDG_STATE_HOME"]) / "pylon" / "edits" / "default"
    assert len(list(folder.glob("*.idx"))) == 1
    assert ed.read("big.txt", "--offset", "59990") == tag
    res = ed.edit("big.txt", tag, "replace 30005\n+changed\n")
    assert res.code == 0, res
    assert ed.bytes("big.txt").split(b"\n")[30004] == b"changed"


def test_same_inode_size_and_mtime_with_other_bytes_is_not_fooled(ed: Ed) -> None:
    import hashlib
    import os

    first = _big(60000, 20)
    path = ed.write("big.txt", first)
    ed.read("big.txt", "--limit", "1")
    st = path.stat()
    # Same size, different line breaks, written in place, mtime put back: only the hash can tell.
    second = first.replace(b"x\n0", b"\n0x", 3000)
    assert len(second) == len(first) and second != first
    with open(path, "r+b") as fh:
        fh.write(second)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_ino == st.st_ino and path.stat().st_mtime_ns == st.st_mtime_ns
    res = ed.run("pylon", "read", "big.txt", "--offset", "40000", "--limit", "3", "--json", cwd=ed.root)
    doc = res.json()
    assert doc["tag"] == hashlib.sha256(second).hexdigest()[:12]
    expected = second.split(b"\n")[39999:40002]
    assert [t.encode() for _, t in doc["lines"]] == expected
    assert doc["total_lines"] == second.count(b"\n")


def test_corrupt_index_file_is_ignored(ed: Ed, isolated_env: dict[str, str]) -> None:
    ed.write("big.txt", _big(60000, 20))
    tag = ed.read("big.txt", "--limit", "5")
    folder = Path(isolated_env["XDG_STATE_HOME"]) / "pylon" / "edits" / "default"
    (index,) = folder.glob("*.idx")
    index.write_bytes(index.read_bytes()[:-64])
    res = ed.edit("big.txt", tag, "replace 3\n+three\n")
    assert res.code == 0, res
    assert ed.bytes("big.txt").split(b"\n")[2] == b"three"
    assert ed.run("pylon", "read", "big.txt", "--offset", "59999", "--json", cwd=ed.root).json()["lines"][0][0] == 59999


def test_trusted_window_reads_match_the_file(ed: Ed) -> None:
    import time

    data = _big(60000, 20).replace(b"0001000:", b"\xc3\xa9\r\n0001000:")  # one CRLF, some UTF-8
    path = ed.write("big.txt", data)
    first = ed.run("pylon", "read", "big.txt", "--json", cwd=ed.root).json()
    time.sleep(2.2)  # past the racy interval: the next reads trust the recorded digest and index
    lines = data.split(b"\n")
    for offset in (1, 999, 1000, 30000, 59000, 60001):
        doc = ed.run("pylon", "read", "big.txt", "--offset", str(offset), "--json", cwd=ed.root).json()
        assert doc["tag"] == first["tag"] and doc["total_lines"] == 60001
        assert doc["eol"] == "mixed" and doc["final_newline"] is True
        for n, text in doc["lines"]:
            assert text.encode() == lines[n - 1].rstrip(b"\r"), n
    # Appending changes size and ctime: the next read hashes again.
    with open(path, "ab") as fh:
        fh.write(b"appended\n")
    doc = ed.run("pylon", "read", "big.txt", "--offset", "60002", "--json", cwd=ed.root).json()
    assert doc["lines"] == [[60002, "appended"]] and doc["tag"] != first["tag"]
    res = ed.edit("big.txt", doc["tag"], "replace 60002\n+APPENDED\n")
    assert res.code == 0, res


def _session_folder(isolated_env: dict[str, str]) -> Path:
    return Path(isolated_env["XDG_STATE_HOME"]) / "pylon" / "edits" / "default"


def _key(path: Path) -> str:
    return hashlib.sha256(os.path.realpath(path).encode()).hexdigest()[:32]


def test_a_ledger_of_the_json_format_is_carried_over(ed: Ed, isolated_env: dict[str, str]) -> None:
    # The format before the marshal one: its seen marks still count, and it is then rewritten.
    path = ed.write("f.txt", "a\nb\nc\n")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    folder = _session_folder(isolated_env)
    folder.mkdir(parents=True)
    rev = {"digest": digest, "tag": digest[:12], "seen": [[1, 3]], "lines": 3, "size": 6, "snap": False}
    legacy = folder / f"{_key(path)}.json"
    legacy.write_text(json.dumps({"version": 1, "path": os.path.realpath(path), "revisions": [rev]}))
    res = ed.edit("f.txt", digest[:12], "replace 2\n+B\n")
    assert res.code == 0, res
    assert ed.bytes("f.txt") == b"a\nB\nc\n"
    assert not legacy.exists() and len(ledger_docs(folder)) == 1


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\xff\xfe garbage",
        b"PYLNLED1",
        b"PYLNLED1\xe9\x00\x01",
        b"PYLNLED1" + marshal.dumps([1, 2]),
        b"PYLNLED1" + marshal.dumps({"path": "x", "revisions": 3}),
        b"PYLNLED1" + marshal.dumps({"path": "REAL", "revisions": [{"digest": 1}, "x", {"tag": "a", "seen": [[1]]}]}),
    ],
    ids=["empty", "bytes", "magic only", "truncated", "a list", "foreign path", "bad revisions"],
)
def test_a_damaged_ledger_counts_as_empty_and_never_crashes(
    ed: Ed, isolated_env: dict[str, str], content: bytes
) -> None:
    path = ed.write("f.txt", "a\nb\n")
    folder = _session_folder(isolated_env)
    folder.mkdir(parents=True)
    (folder / f"{_key(path)}.ledger").write_bytes(content.replace(b"REAL", os.path.realpath(path).encode()))
    (folder / f"{_key(path)}.json").write_bytes(b"[1, 2]")  # a foreign file of the old format too
    res = ed.edit("f.txt", "0123456789ab", "replace 1\n+x\n")
    assert res.code == 1 and "error[unknown-revision]" in res.err and "Traceback" not in res.err
    res = ed.read_text("f.txt")
    assert res.code == 0 and res.out.splitlines()[1:] == ["1:a", "2:b"], res
    tag = res.out.splitlines()[0].rsplit("#", 1)[1].rstrip("]")
    assert ed.edit("f.txt", tag, "replace 1\n+x\n").code == 0
