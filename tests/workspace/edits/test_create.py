"""`pylon edit PATH --create`: a new file from the request's lines, its tag, refusals that write nothing."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import MakeRepo, Run, git


def _listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts)


def test_create_from_stdin_prints_a_tag_whose_lines_are_all_seen(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo({"README": "x\n"})
    res = run(
        "pylon",
        "edit",
        "src/util/slug.py",
        "--create",
        cwd=repo,
        input="insert after 0\n+def slug(text):\n+    return text\n",
    )
    assert res.code == 0, res
    assert (repo / "src/util/slug.py").read_bytes() == b"def slug(text):\n    return text\n"
    assert "Created src/util/slug.py with 2 line(s) (made folders src, src/util)." in res.out
    tag = res.out.rsplit("#", 1)[1].split("]")[0]
    # the lines were written by the agent: the next edit needs no read
    again = run("pylon", "edit", f"src/util/slug.py#{tag}", "--replace", "2", "    return text.lower()", cwd=repo)
    assert again.code == 0, again
    assert (repo / "src/util/slug.py").read_bytes() == b"def slug(text):\n    return text.lower()\n"
    # git sees exactly the new file, and no temp file was left beside it
    assert git(repo, "status", "--porcelain", "-uall") == "?? src/util/slug.py\n"


def test_create_with_a_flag_and_json(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo({"README": "x\n"})
    res = run("pylon", "edit", "notes.txt", "--create", "--insert-after", "0", "one line", "--json", cwd=repo)
    assert res.code == 0, res
    doc = res.json()
    assert doc["created"] is True and doc["total_lines"] == 1 and doc["folders_created"] == []
    assert (repo / "notes.txt").read_bytes() == b"one line\n"
    read = run("pylon", "read", "notes.txt", "--json", cwd=repo)
    assert read.json()["tag"] == doc["new_tag"]


def test_an_empty_request_makes_an_empty_file(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo({"README": "x\n"})
    res = run("pylon", "edit", "empty.txt", "--create", cwd=repo, input=b"")
    assert res.code == 0, res
    assert (repo / "empty.txt").read_bytes() == b""


def test_refused_when_anything_is_there(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo({"keep.txt": "old\n", "dir/a": "a\n"})
    os.symlink("nowhere", repo / "dangling")
    for name in ("keep.txt", "dir", "dangling"):
        res = run("pylon", "edit", name, "--create", "--insert-after", "0", "new", "--json", cwd=repo)
        assert res.code == 4, res
        assert res.json()["error"]["code"] == "file-exists", res
    assert (repo / "keep.txt").read_bytes() == b"old\n"
    assert os.readlink(repo / "dangling") == "nowhere"
    assert git(repo, "status", "--porcelain", "-uall") == "?? dangling\n"


def test_refusals_outside_the_checkout_create_nothing(run: Run, make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo({"README": "x\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, repo / "out")
    # one fault, one code (pylon/codes.py): outside the checkout is `path-outside` (exit 2); `.git` is refused
    cases = {
        "../outside/a.txt": ("path-outside", "outside", 2),
        "out/a.txt": ("path-outside", "symlink-outside", 2),
        ".git/hooks/x": ("path-refused", "git-dir", 1),
        "out/deeper/b.txt": ("path-outside", "symlink-outside", 2),
    }
    for path, (code, reason, status) in cases.items():
        res = run("pylon", "edit", path, "--create", "--insert-after", "0", "x", "--json", cwd=repo)
        assert res.code == status, res
        err = res.json()["error"]
        assert (err["code"], err["reason"]) == (code, reason), res
    assert list(outside.iterdir()) == []
    assert not (repo / ".git/hooks/x").exists()


def test_a_symlinked_folder_inside_the_checkout_is_followed(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo({"real/keep": "k\n"})
    os.symlink("real", repo / "alias")
    res = run("pylon", "edit", "alias/new.txt", "--create", "--insert-after", "0", "x", cwd=repo)
    assert res.code == 0, res
    assert (repo / "real/new.txt").read_bytes() == b"x\n"


def test_a_bad_request_creates_nothing(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo({"README": "x\n"})
    before = _listing(repo)
    res = run("pylon", "edit", "a/b/c.txt", "--create", cwd=repo, input="replace 1\n+x\n")
    assert res.code == 2 and "error[out-of-range]" in res.err, res
    assert _listing(repo) == before


def test_a_tag_or_an_edit_only_option_is_a_usage_error(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo({"README": "x\n"})
    res = run("pylon", "edit", "new.txt#0123456789ab", "--create", cwd=repo, input="insert after 0\n+x\n")
    assert res.code == 2 and "pylon edit new.txt --create" in res.err, res
    res = run("pylon", "edit", "new.txt", "--create", "--dry-run", cwd=repo, input="insert after 0\n+x\n")
    assert res.code == 2 and "--dry-run" in res.err, res
    assert not (repo / "new.txt").exists()


def test_outside_any_checkout_the_current_folder_is_the_root(run: Run, project: Path) -> None:
    (project / "sub").mkdir()
    res = run("pylon", "edit", "x.txt", "--create", "--insert-after", "0", "x", cwd=project / "sub")
    assert res.code == 0, res
    res = run("pylon", "edit", "../y.txt", "--create", "--insert-after", "0", "x", "--json", cwd=project / "sub")
    assert (
        res.code == 2 and res.json()["error"]["code"] == "path-outside" and res.json()["error"]["reason"] == "outside"
    ), res


def test_the_not_found_hint_names_create(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo({"README": "x\n"})
    for argv in (("read", "missing.py"), ("edit", "missing.py#0123456789ab", "--replace", "1", "x")):
        res = run("pylon", *argv, cwd=repo)
        assert res.code == 4 and "error[not-found]" in res.err, res
        assert "pylon edit missing.py --create" in res.err, res
