"""Names too long for the file system: per segment (255 bytes, with room for a write's temp file),
and whole paths (PATH_MAX, 4096 bytes, the store's own location included). Coded errors, refused
before anything is created."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.canon.conftest import MakeStore
from tests.canon.helpers import snapshot
from tests.conftest import Result, Run

SEGMENT = "b" * 200


def _deep(base: Path, total: int) -> Path:
    """A real folder whose absolute path is about `total` bytes long."""
    folder = base
    while len(os.fsencode(folder)) + len(SEGMENT) + 1 < total:
        folder = folder / SEGMENT
    rest = total - len(os.fsencode(folder)) - 1
    if rest > 0:
        folder = folder / ("c" * rest)
    folder.mkdir(parents=True)
    return folder


def _refused(result: Result) -> dict:
    assert result.code == 2, result
    assert result.out.count("\n") == 1, result  # exactly one JSON document
    doc = json.loads(result.out)
    assert doc["ok"] is False and doc["error"]["code"] == "name-too-long", doc
    assert "Traceback" not in result.err and "internal-error" not in result.out
    return doc


def test_an_address_path_over_path_max_is_refused_with_nothing_created(run: Run, project: Path) -> None:
    address = "/".join([SEGMENT] * 21) + "/x"  # every segment is short; the whole is 4200+ bytes
    doc = _refused(run("canon", "write", address, "--body", "x", "--json", cwd=project))
    assert "limit for a whole path is 4095" in doc["error"]["message"], doc
    assert not (project / ".canon").exists()


def test_in_an_existing_store_nothing_changes(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"app": "---\ncapsule: A.\n---\nB.\n"})
    before = snapshot(root)
    _refused(run("canon", "write", "/".join([SEGMENT] * 21), "--body", "x", "--json", cwd=root))
    assert snapshot(root) == before


def test_the_last_segment_leaves_room_for_the_temp_file(run: Run, project: Path) -> None:
    # 230 bytes + `.md` fits a file name, but not `.<name>.pylon-tmp-<pid>-<hex>`, which a write makes first.
    doc = _refused(run("canon", "write", "a" * 230, "--body", "x", "--json", cwd=project))
    assert "the limit is 227" in doc["error"]["message"], doc
    assert not (project / ".canon").exists()
    ok = run("canon", "write", "a" * 224, "--body", "x", cwd=project)  # 227 bytes with .md
    assert ok.code == 0, ok
    again = run("canon", "write", "a" * 224, "--body", "y", cwd=project)  # a rewrite goes through a temp file
    assert again.code == 0, again
    assert (project / ".canon" / "articles" / ("a" * 224 + ".md")).read_text().endswith("y\n")


def test_the_stores_own_location_counts(run: Run, tmp_path: Path) -> None:
    root = _deep(tmp_path / "r", 3950)
    (root / ".canon").mkdir()
    address = "d" * 150  # short, but .canon/articles/<it>.md under this root passes 4096 bytes
    _refused(run("canon", "write", address, "--body", "x", "--json", cwd=root))
    assert os.listdir(root / ".canon") == []
    assert run("canon", "write", "d" * 10, "--body", "x", cwd=root).code == 0


def test_a_journal_entry_whose_path_would_be_too_long(run: Run, tmp_path: Path) -> None:
    root = _deep(tmp_path / "j", 4040)
    doc = _refused(run("canon", "journal", "event", "--slug", "s" * 40, "--json", cwd=root))
    assert "shorter path" in doc["error"]["hint"], doc
    assert not (root / ".canon").exists()
