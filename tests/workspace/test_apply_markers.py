"""`ws apply ID --markers [--diff3]`: conflicts written into the checkout as git-style markers.

Oracle: `git merge-file -p -L checkout -L base -L "session a"` on the three versions of each file
(the checkout's, the baseline's, the session's): its output is what the checkout must hold after
the apply, for conflicting and cleanly merged files alike. Every line of the generated files holds
a letter, so git's two content-merge levels (merge-file's and merge-ort's) cannot differ.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git, write_files
from tests.workspace.helpers import index_snapshot, pylon
from tests.workspace.states import differences, snapshot
from tests.workspace.wt_helpers import new

NAMES = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]


def _lines(rng: random.Random, n: int) -> list[str]:
    return [f"{rng.choice(NAMES)} {rng.randrange(100)}\n" for _ in range(n)]


def _mutate(rng: random.Random, lines: list[str], tag: str) -> list[str]:
    out = list(lines)
    for _ in range(rng.randrange(1, 4)):
        i = rng.randrange(len(out) + 1)
        kind = rng.choice(["replace", "insert", "delete"])
        if kind == "replace" and i < len(out):
            out[i] = f"{tag} {rng.randrange(1000)}\n"
        elif kind == "delete" and i < len(out) and len(out) > 2:
            del out[i]
        else:
            out.insert(i, f"{tag} new {rng.randrange(1000)}\n")
    return out


def merge_file(tmp: Path, ours: bytes, base: bytes, theirs: bytes, diff3: bool) -> tuple[int, bytes]:
    for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
        (tmp / name).write_bytes(data)
    args = [
        "git",
        "merge-file",
        "-p",
        *(["--diff3"] if diff3 else []),
        "-L",
        "checkout",
        "-L",
        "base",
        "-L",
        "session a",
        "ours",
        "base",
        "theirs",
    ]
    proc = subprocess.run(args, cwd=tmp, capture_output=True)
    assert proc.returncode >= 0, proc.stderr
    return proc.returncode, proc.stdout


@pytest.mark.parametrize("diff3", [False, True])
@pytest.mark.parametrize("seed", [1, 2])
def test_markers_match_git_merge_file_and_undo_restores(repo: Path, tmp_path: Path, diff3: bool, seed: int) -> None:
    rng = random.Random(seed * 10 + diff3)
    base = {f"m/f{i}.txt": "".join(_lines(rng, 12)) for i in range(10)}
    write_files(repo, base)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base files")
    made = new(repo, "a")
    session = Path(str(made["path"]))
    for path, text in base.items():
        lines = text.splitlines(keepends=True)
        if rng.random() < 0.8:
            write_files(session, {path: "".join(_mutate(rng, lines, "SESSION"))})
        if rng.random() < 0.8:
            write_files(repo, {path: "".join(_mutate(rng, lines, "PERSON"))})
    write_files(session, {"m/only-session.txt": "new\n"})
    scratch = tmp_path / "mf"
    scratch.mkdir()
    expected: dict[str, bytes] = {}
    conflicting: set[str] = set()
    for path, text in base.items():
        code, merged = merge_file(
            scratch, (repo / path).read_bytes(), text.encode(), (session / path).read_bytes(), diff3
        )
        expected[path] = merged
        if code:
            conflicting.add(path)
    assert conflicting, "the seed should make at least one conflict"
    before = snapshot(repo)
    raw_index = index_snapshot(repo)
    args = ["ws", "apply", "a", "--markers", *(["--diff3"] if diff3 else []), "--json"]
    result = pylon(*args, cwd=repo)
    assert result.code == 0, result
    doc = result.json()
    assert set(doc["markers"]) == conflicting and doc["applied"] is True
    for path, data in expected.items():
        assert (repo / path).read_bytes() == data, path
    assert (repo / "m/only-session.txt").read_text() == "new\n"
    assert index_snapshot(repo) == raw_index  # the index is not touched: markers are unstaged work
    undo = pylon("ws", "undo", cwd=repo)
    assert undo.code == 0, undo
    assert differences(before, snapshot(repo)) == []


def test_conflicts_and_apply_print_the_same_report(repo: Path) -> None:
    write_files(repo, {"f.txt": "a\nb\nc\nd\ne\n", "g.txt": "one\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "files")
    session = Path(str(new(repo, "a")["path"]))
    write_files(session, {"f.txt": "a\nSESSION\nc\nd\nE2\n", "h.txt": "h\n"})
    git(session, "add", "-A")
    git(session, "commit", "-qm", "session work")  # committed on the session branch: base still the baseline
    write_files(repo, {"f.txt": "a\nPERSON\nc\nd\nE1\n"})
    refused = pylon("ws", "apply", "a", cwd=repo)
    assert refused.code == 1, refused
    report = pylon("ws", "conflicts", "a", cwd=repo)
    assert report.code == 1 or report.code == 0, report
    block = refused.err.split("error[")[0]
    assert block == report.out, (block, report.out)
    assert "<<<<<<< checkout\n" in block.replace("      ", "") and ">>>>>>> session a" in block
    assert block.index("PERSON") < block.index("SESSION")  # the checkout's side first in both
    assert "pylon ws apply a --markers" in refused.err  # the hint is the next step, not `ws conflicts`
    marked = pylon("ws", "apply", "a", "--markers", cwd=repo)
    assert marked.code == 0, marked
    assert block.rstrip("\n") in marked.err
    assert "f.txt  (conflict markers)" in marked.out and "h.txt" in marked.out
    assert (repo / "f.txt").read_text() == (
        "a\n<<<<<<< checkout\nPERSON\nc\nd\nE1\n=======\nSESSION\nc\nd\nE2\n>>>>>>> session a\n"
    )


def test_a_marker_like_line_of_the_file_itself_is_kept(repo: Path) -> None:
    """Only the merge's own labels are renamed: text that looks like a marker stays byte for byte."""
    text = "x\n<<<<<<< deadbeef\nkeep\n>>>>>>> feature\ny\nz\n"
    write_files(repo, {"doc.md": text})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "doc")
    session = Path(str(new(repo, "a")["path"]))
    write_files(session, {"doc.md": text.replace("z\n", "SESSION\n")})
    write_files(repo, {"doc.md": text.replace("z\n", "PERSON\n")})
    assert pylon("ws", "apply", "a", "--markers", cwd=repo).code == 0
    got = (repo / "doc.md").read_text()
    assert got.startswith("x\n<<<<<<< deadbeef\nkeep\n>>>>>>> feature\ny\n<<<<<<< checkout\nPERSON\n")


def test_diff3_needs_markers(repo: Path) -> None:
    new(repo, "a")
    res = pylon("ws", "apply", "a", "--diff3", cwd=repo)
    assert res.code == 2 and "--markers --diff3" in res.err, res
