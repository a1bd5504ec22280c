"""`canon write` / `canon journal` without a store create the store `canon init` makes, and say so."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, snapshot
from tests.conftest import Run

INIT_PATHS = [".canon/", ".canon/articles/", ".canon/journal/", ".canon/.gitignore", ".canon/schema.json"]
CREATED_LINE = "created " + ", ".join(INIT_PATHS)


def store_made_by_init(run: Run, tmp_path: Path) -> dict[str, bytes | None]:
    other = tmp_path / "by-init"
    other.mkdir()
    assert run("canon", "init", cwd=other).code == 0
    return snapshot(other / ".canon")


def without(tree: dict[str, bytes | None], folder: str) -> dict[str, bytes | None]:
    """`tree` minus everything inside `folder` (the folder itself stays)."""
    return {k: v for k, v in tree.items() if k == folder or not k.startswith(folder)}


def test_first_write_makes_the_init_store_and_says_so(run: Run, project: Path, tmp_path: Path) -> None:
    r = run("canon", "write", "src/app.py", "--capsule", "The app.", "--body", "It runs.", cwd=project)
    assert r.code == 0, r
    assert r.out == "Wrote src/app.\n"
    assert r.err.splitlines()[0] == CREATED_LINE
    made = without(snapshot(project / ".canon"), "articles/")
    assert made == without(store_made_by_init(run, tmp_path), "articles/")
    # Only a new store is announced.
    r = run("canon", "write", "src/app.py", "--body", "It runs fast.", cwd=project)
    assert r.code == 0 and "created" not in r.err, r


def test_first_journal_entry_makes_the_init_store_and_says_so(run: Run, project: Path, tmp_path: Path) -> None:
    r = run("canon", "journal", "Started.", cwd=project)
    assert r.code == 0, r
    assert r.out.startswith("Logged ") and r.err.splitlines() == [CREATED_LINE]
    assert without(snapshot(project / ".canon"), "journal/") == without(store_made_by_init(run, tmp_path), "journal/")
    r = run("canon", "journal", "Again.", cwd=project)
    assert r.code == 0 and r.err == "", r


def test_json_names_the_created_store(run: Run, project: Path) -> None:
    doc = run("canon", "write", "--json", "a", "--body", "Body.", cwd=project).json()
    assert doc["created_store"] == INIT_PATHS
    assert run("canon", "write", "--json", "a", "--body", "Other.", cwd=project).json()["created_store"] == []
    other = project / "sub"
    other.mkdir()
    doc = run("canon", "journal", "--json", "x", "--root", str(other), cwd=project).json()
    assert doc["created_store"] == INIT_PATHS  # relative to the project root (--root), not the current folder
    assert run("canon", "journal", "--json", "y", cwd=project).json()["created_store"] == []


def test_a_partial_store_is_completed_without_a_schema(run: Run, project: Path) -> None:
    (project / ".canon" / "articles").mkdir(parents=True)  # made by hand: no journal/, no .gitignore
    r = run("canon", "journal", "x", cwd=project)
    assert r.code == 0, r
    assert r.err.splitlines() == ["created .canon/journal/, .canon/.gitignore"]
    assert not (project / ".canon" / "schema.json").exists()  # optional: a store without one keeps none
    assert run("canon", "write", "--json", "a", "--body", "B.", cwd=project).json()["created_store"] == []


def test_a_new_mount_store_is_named_from_the_project_root(run: Run, make_store: MakeStore, tmp_path: Path) -> None:
    root = make_store(articles={"a": article("A.")})
    lake = tmp_path / "lake"
    lake.mkdir()
    doc = run("canon", "write", "--json", "lake:prices", "--body", "Prices.", "--mount", str(lake), cwd=root).json()
    assert doc["created_store"] == [f"../lake/{p}" for p in INIT_PATHS]
    assert (lake / ".canon" / "schema.json").is_file()


@pytest.mark.parametrize(
    "argv",
    [
        ["write", ".", "--body", "x"],  # the empty address
        ["write", "../elsewhere", "--body", "x"],  # outside the project
        ["write", ".canon/journal/x", "--body", "x"],  # inside the store
        ["write", "a", "--capsule", "No body."],  # a new article needs a body
        ["write", "a", "--body", "x", "--scope", "wide"],
        ["write", "nomount:a", "--body", "x"],
        ["journal", ""],
        ["journal", "x", "--slug", "!!!"],
        ["journal", "x", "--subject", "../elsewhere"],
        ["journal", "x", "--subject", "."],
    ],
    ids=lambda a: " ".join(a),
)
def test_nothing_is_created_when_the_command_fails(run: Run, project: Path, argv: list[str]) -> None:
    r = run("canon", *argv, cwd=project)
    assert r.code in (1, 2), r
    assert "error[" in r.err and "created" not in r.err, r
    assert os.listdir(project) == []


def test_a_folder_made_by_another_writer_meanwhile_is_not_a_file_in_the_way(tmp_path: Path) -> None:
    """Twenty first writes at once once failed one of them with `not-a-directory` for `.canon`
    (CI, 2026-12-02): the check looked twice (a folder? anything there?) and the folder appeared
    between the looks. A thread creating folders while the check runs over them hit that window
    43 times in 3,000 before the fix."""
    import sys
    import threading

    from pylon.canon.init import check_folders
    from pylon.errors import PylonError

    count = 3000
    start = threading.Event()

    def make() -> None:
        start.wait()
        for i in range(count):
            os.mkdir(tmp_path / f"d{i}")

    maker = threading.Thread(target=make)
    maker.start()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible, to land between two looks
    refused: list[str] = []
    try:
        start.set()
        while maker.is_alive():
            for i in range(count):
                try:
                    check_folders(tmp_path / f"d{i}" / "x")
                except PylonError as exc:
                    refused.append(str(exc))
    finally:
        sys.setswitchinterval(interval)
        maker.join()
    assert refused == []
    assert all((tmp_path / f"d{i}").is_dir() for i in range(count))


def test_a_dangling_link_or_a_file_in_the_way_is_still_refused(tmp_path: Path) -> None:
    from pylon.canon.init import check_folders
    from pylon.errors import PylonError

    (tmp_path / "file").write_text("x")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    for blocked, named in (
        (tmp_path / "file" / "a" / "b", tmp_path / "file"),
        (tmp_path / "dangling" / "a", tmp_path / "dangling"),
    ):
        with pytest.raises(PylonError) as caught:
            check_folders(blocked)
        assert caught.value.code == "not-a-directory"
        assert f"{named} exists but is not a folder" in str(caught.value)
    check_folders(tmp_path / "absent" / "a")  # nothing in the way: no error
