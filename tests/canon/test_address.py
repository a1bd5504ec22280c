"""Addresses and resolution, through `canon resolve` and `canon read` (real processes, real files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import MakeRepo, Run


@pytest.fixture
def tree(make_store: MakeStore) -> Path:
    return make_store(
        articles={
            "src": article("Sources."),
            "src/core/config": article("Config loader."),
            "src/core/config.test": article("Tests of the config loader."),
            ".env": article("Environment file."),
            "lib/a.tar": article("An archive."),
            "lake/prices": article("Prices (not a mount)."),
        },
        files={
            "src/core/config.ts": "x",
            "src/core/config.test.ts": "x",
            "src/core/other.py": "x",
            ".env": "A=1",
            "lib/a.tar.gz": "x",
            "docs/readme.md": "x",
        },
    )


@pytest.mark.parametrize(
    ("arg", "governing"),
    [
        ("src/core/config.ts", "src/core/config"),  # one extension dropped
        ("src/core/config.test.ts", "src/core/config.test"),  # only the last one
        ("lib/a.tar.gz", "lib/a.tar"),
        (".env", ".env"),  # a leading dot is not an extension
        ("src/core/other.py", "src"),  # nearest existing ancestor governs
        ("src/core/deep/new/file.rs", "src"),
        ("src\\core\\config.ts", "src/core/config"),  # backslashes become slashes
        ("  src/core/config.ts  ", "src/core/config"),  # trimmed
        ("src/./core/../core/config.ts", "src/core/config"),  # . and .. resolved
        ("src/core/config", "src/core/config"),  # an address works too
        ("src/core/config.test", "src/core/config.test"),  # exact article first (no such file on disk)
        ("docs/readme.md", "-"),
        (".", "-"),  # the empty address governs nothing
    ],
)
def test_resolve_prints_path_tab_governing(run: Run, tree: Path, arg: str, governing: str) -> None:
    r = run("canon", "resolve", arg, cwd=tree)
    assert r.code == 0, r
    assert r.out == f"{arg}\t{governing}\n"


def test_resolve_many_paths_one_line_each(run: Run, tree: Path) -> None:
    r = run("canon", "resolve", "src/core/config.ts", "docs/readme.md", ".env", cwd=tree)
    assert r.code == 0, r
    assert r.out.splitlines() == ["src/core/config.ts\tsrc/core/config", "docs/readme.md\t-", ".env\t.env"]


def test_resolve_explain_lists_every_address_tried(run: Run, tree: Path) -> None:
    r = run("canon", "resolve", "--explain", "src/core/deep/x.py", cwd=tree)
    assert r.code == 0, r
    assert r.out.splitlines() == [
        "src/core/deep/x.py\tsrc",
        "  tried src/core/deep/x: no article",
        "  tried src/core/deep: no article",
        "  tried src/core: no article",
        "  tried src: governs",
    ]


def test_resolve_json(run: Run, tree: Path) -> None:
    r = run("canon", "resolve", "--json", "src/core/other.py", "docs/x", cwd=tree)
    assert r.code == 0, r
    doc = r.json()
    assert doc["ok"] is True
    assert doc["results"] == [
        {
            "path": "src/core/other.py",
            "address": "src/core/other",
            "governing": "src",
            "tried": ["src/core/other", "src/core", "src"],
        },
        {"path": "docs/x", "address": "docs/x", "governing": None, "tried": ["docs/x", "docs"]},
    ]


def test_arguments_are_relative_to_the_current_directory(run: Run, tree: Path) -> None:
    r = run("canon", "resolve", "config.ts", "../../lib/a.tar.gz", "other.py", cwd=tree / "src" / "core")
    assert r.code == 0, r
    assert r.out.splitlines() == ["config.ts\tsrc/core/config", "../../lib/a.tar.gz\tlib/a.tar", "other.py\tsrc"]
    r = run("canon", "read", "config.ts", cwd=tree / "src" / "core")
    assert r.code == 0, r
    assert r.out.startswith("src/core/config\ncapsule: Config loader.\n")


def test_a_file_on_disk_wins_over_an_article_address(run: Run, tree: Path) -> None:
    # `src/core/config.test.ts` exists on disk, so it is a path (extension dropped), not an address.
    r = run("canon", "resolve", "src/core/config.test.ts", cwd=tree)
    assert r.out == "src/core/config.test.ts\tsrc/core/config.test\n"
    # `src/core/config.test` is no file, and is an article: used as is (not `src/core/config`).
    r = run("canon", "read", "src/core/config.test", cwd=tree)
    assert r.code == 0 and r.out.startswith("src/core/config.test\n"), r


def test_a_dotted_address_without_its_article_drops_the_extension(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"src/core/config": article("Config.")})
    r = run("canon", "resolve", "src/core/config.test", cwd=root)
    assert r.out == "src/core/config.test\tsrc/core/config\n"


@pytest.mark.parametrize("arg", ["..", "../elsewhere.py", "src/../../x", "/etc/passwd"])
def test_paths_escaping_the_project_are_refused(run: Run, tree: Path, arg: str) -> None:
    r = run("canon", "resolve", arg, cwd=tree)
    assert r.code == 2, r
    assert r.out == ""
    assert r.err.startswith("error[path-outside]: ")
    assert "hint: " in r.err


def test_dotdot_never_rises_above_the_root_from_a_subfolder(run: Run, tree: Path) -> None:
    r = run("canon", "resolve", "../../..", cwd=tree / "src" / "core")
    assert r.code == 2 and "error[path-outside]" in r.err, r
    r = run("canon", "resolve", "../..", cwd=tree / "src" / "core")
    assert r.out == "../..\t-\n", r


def test_article_file_path_addresses_its_article(run: Run, tree: Path) -> None:
    r = run("canon", "resolve", ".canon/articles/src/core/config.md", cwd=tree)
    assert r.out == ".canon/articles/src/core/config.md\tsrc/core/config\n", r


def test_root_is_found_from_a_subfolder_and_with_root_option(run: Run, tree: Path, tmp_path: Path) -> None:
    r = run("canon", "resolve", "src/core/config.ts", cwd=tree)
    assert r.out.endswith("src/core/config\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = run("canon", "read", "src/core/config", "--root", str(tree), cwd=elsewhere)
    assert r.code == 0 and r.out.startswith("src/core/config\n"), r
    r = run("canon", "read", "src/core/config", "--root", str(tree / ".canon"), cwd=elsewhere)
    assert r.code == 0, r


def test_git_toplevel_is_the_root_without_a_store(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo({"pkg/mod.py": "x"})
    r = run("canon", "resolve", "mod.py", cwd=repo / "pkg")
    assert r.out == "mod.py\t-\n", r
    r = run("canon", "write", "mod.py", "--capsule", "A module.", "--body", "It does things.", cwd=repo / "pkg")
    assert r.code == 0, r
    assert (repo / ".canon" / "articles" / "pkg" / "mod.md").is_file()
