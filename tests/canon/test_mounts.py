"""Mounts: `.canon/config.toml` and `--mount DIR`; `name:address`; paths inside a mount route to it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, snapshot
from tests.conftest import Run


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    root = tmp_path / "data" / "lake"
    (root / ".canon" / "articles").mkdir(parents=True)
    (root / ".canon" / "articles" / "prices.md").write_text(article("Daily prices.", "Parquet, one file a day.\n"))
    (root / "prices.parquet").write_text("x")
    (root / "raw").mkdir()
    (root / "raw" / "feed.csv").write_text("x")
    return root


@pytest.fixture
def proj(make_store: MakeStore, lake: Path) -> Path:
    root = make_store(articles={"src": article("Sources.")})
    (root / ".canon" / "config.toml").write_text(f'mounts = ["{lake}"]\n')
    return root


def test_mount_address_reads_the_mount_article(run: Run, proj: Path) -> None:
    r = run("canon", "read", "lake:prices", cwd=proj)
    assert r.code == 0, r
    assert r.out.startswith("lake:prices\ncapsule: Daily prices.\n")


def test_relative_mount_paths_in_config_are_relative_to_the_project(
    run: Run, make_store: MakeStore, lake: Path, tmp_path: Path
) -> None:
    root = make_store(root=tmp_path / "data" / "app")
    (root / ".canon" / "config.toml").write_text('mounts = ["../lake"]\n')
    r = run("canon", "read", "lake:prices", cwd=root / ".canon")
    assert r.code == 0, r


def test_paths_inside_a_mount_route_to_it(run: Run, proj: Path, lake: Path) -> None:
    r = run("canon", "resolve", str(lake / "prices.parquet"), str(lake / "raw" / "feed.csv"), cwd=proj)
    assert r.out.splitlines() == [f"{lake / 'prices.parquet'}\tlake:prices", f"{lake / 'raw' / 'feed.csv'}\t-"]
    r = run("canon", "read", "prices.parquet", cwd=lake)
    # Run from inside the mount, the mount folder is its own project: its store governs.
    assert r.code == 0 and r.out.startswith("prices\n"), r


def test_mount_by_option_and_writing_into_a_mount(run: Run, make_store: MakeStore, lake: Path) -> None:
    root = make_store()
    r = run("canon", "read", "lake:prices", cwd=root)
    assert r.code == 1 and "error[unknown-mount]" in r.err, r
    r = run(
        "canon", "write", "lake:raw/feed", "--capsule", "Raw feed.", "--body", "CSV.", "--mount", str(lake), cwd=root
    )
    assert r.code == 0 and r.out == "Wrote lake:raw/feed.\n", r
    assert (lake / ".canon" / "articles" / "raw" / "feed.md").is_file()
    assert not (root / ".canon" / "articles" / "raw").exists()


def test_two_projects_share_a_mount(run: Run, make_store: MakeStore, lake: Path, tmp_path: Path) -> None:
    a = make_store(root=tmp_path / "a")
    b = make_store(root=tmp_path / "b")
    assert (
        run("canon", "write", "lake:shared", "--capsule", "Shared.", "--body", "B.", "--mount", str(lake), cwd=a).code
        == 0
    )
    r = run("canon", "read", "lake:shared", "--mount", str(lake), cwd=b)
    assert r.code == 0 and "capsule: Shared." in r.out, r


def test_map_lists_mount_articles_after_the_project(run: Run, proj: Path) -> None:
    r = run("canon", "map", cwd=proj)
    assert r.out.splitlines() == ["src: Sources.", "lake:prices: Daily prices."]
    r = run("canon", "map", "lake:", cwd=proj)
    assert r.out.splitlines() == ["lake:prices: Daily prices."]


def test_unknown_mount_is_refused(run: Run, proj: Path) -> None:
    before = snapshot(proj)
    for argv in (
        ["read", "sea:x"],
        ["write", "sea:x", "--capsule", "C.", "--body", "B."],
        ["journal", "x", "--subject", "sea:x"],
    ):
        r = run("canon", *argv, cwd=proj)
        assert r.code == 1, r
        assert r.err.startswith("error[unknown-mount]: No mount is named 'sea' (mounts: lake).")
    assert snapshot(proj) == before


def test_two_mounts_with_one_basename_are_a_configuration_error(run: Run, proj: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere" / "lake"
    other.mkdir(parents=True)
    r = run("canon", "read", "src", "--mount", str(other), cwd=proj)
    assert r.code == 2 and r.err.startswith("error[mount-conflict]:"), r


def test_missing_mount_folder_and_bad_config(run: Run, make_store: MakeStore, tmp_path: Path) -> None:
    root = make_store(articles={"a": article("A.")})
    r = run("canon", "read", "a", "--mount", str(tmp_path / "nope"), cwd=root)
    assert r.code == 2 and "error[bad-mount]" in r.err, r
    (root / ".canon" / "config.toml").write_text("mounts = [\n")
    r = run("canon", "read", "a", cwd=root)
    assert r.code == 2 and "error[bad-config]" in r.err, r
    (root / ".canon" / "config.toml").write_text('mounts = "../lake"\n')
    r = run("canon", "read", "a", cwd=root)
    assert r.code == 2 and "error[bad-config]" in r.err, r


def test_status_lists_configured_mounts(run: Run, proj: Path, lake: Path) -> None:
    doc = run("canon", "status", "--json", cwd=proj).json()
    assert doc["mounts"] == [
        {"name": "lake", "root": str(lake), "store": str(lake / ".canon"), "exists": True, "articles": 1}
    ]


def test_mount_addresses_drop_one_extension_like_project_addresses(run: Run, tmp_path: Path) -> None:
    project, lake = tmp_path / "p", tmp_path / "lake"
    (lake / ".canon" / "articles" / "f").mkdir(parents=True)
    (project / ".canon").mkdir(parents=True)
    (project / ".canon" / "config.toml").write_text('mounts = ["../lake"]\n')
    r = run("canon", "write", "lake:f/p.csv", "--capsule", "Prices.", "--body", "x", cwd=project)
    assert r.code == 0 and r.out == "Wrote lake:f/p.\n", r
    assert sorted(os.listdir(lake / ".canon" / "articles" / "f")) == ["p.md"]
