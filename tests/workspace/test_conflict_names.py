"""Conflicts are named by the user's paths, with what each side has there (file, folder, symlink,
deletion), never by git's internal `PATH~<commit id>` (where git's merge puts a file a folder met).
The oracle for the sides is the sessions' own worktrees on disk."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.conftest import MakeRepo
from tests.workspace.helpers import pylon
from tests.workspace.wt_helpers import new

HEX40 = re.compile(r"[0-9a-f]{40}")


def test_a_file_folder_clash_is_named_by_its_path_with_each_sides_kind(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a.txt": "a\n", "gone.txt": "g\n"})
    s1, s2 = (Path(str(new(repo, wid)["path"])) for wid in ("s1", "s2"))
    (s1 / "clash").write_text("a file\n")
    (s2 / "clash").mkdir()
    (s2 / "clash" / "x").write_text("in a folder\n")
    (s1 / "gone.txt").write_text("edited\n")
    (s2 / "gone.txt").unlink()
    os.symlink("a.txt", s1 / "ln")
    (s2 / "ln").mkdir()
    (s2 / "ln" / "y").write_text("y\n")
    text = pylon("ws", "conflicts", cwd=repo)
    assert text.code == 1, text
    assert "  clash  [CONFLICT (file/directory)]  session s1: file, session s2: folder" in text.out, text.out
    assert "  gone.txt  [CONFLICT (modify/delete)]  session s1: file, session s2: deletion" in text.out, text.out
    assert "  ln  [CONFLICT (file/directory)]  session s1: symlink, session s2: folder" in text.out, text.out
    assert not HEX40.search(text.out), text.out
    doc = pylon("ws", "conflicts", "--json", cwd=repo).json()
    conflicts = {c["path"]: c for c in doc["pairs"][0]["conflicts"]}
    assert sorted(conflicts) == ["clash", "gone.txt", "ln"]
    assert conflicts["clash"]["sides"] == [
        {"side": "session s1", "has": "file"},
        {"side": "session s2", "has": "folder"},
    ]
    assert conflicts["clash"]["aside"].startswith("clash~")  # where git's merge put the file
    assert all(not HEX40.search(m.replace(conflicts["clash"]["aside"], "")) for m in conflicts["clash"]["messages"])


def test_a_refused_apply_names_the_path_and_the_checkouts_side(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a.txt": "a\n"})
    s1 = Path(str(new(repo, "s1")["path"]))
    (s1 / "tool").write_text("the session's file\n")
    (repo / "tool").mkdir()
    (repo / "tool" / "part.py").write_text("the person's folder\n")
    refused = pylon("ws", "apply", "s1", cwd=repo)
    assert refused.code == 1, refused
    assert "  tool  [CONFLICT (file/directory)]  checkout: folder, session s1: file" in refused.err, refused.err
    doc = pylon("ws", "apply", "s1", "--json", cwd=repo).json()
    assert [c["path"] for c in doc["error"]["conflicts"]] == ["tool"]
