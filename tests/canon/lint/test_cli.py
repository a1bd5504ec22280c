"""`canon lint` as a command: exit codes, --strict, targets, errors that could not lint, the hook file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.canon.lint.conftest import LONG_BODY, Store
from tests.conftest import run_cmd

ROOT = Path(__file__).resolve().parents[3]


def test_exit_0_when_clean_and_warnings_pass_without_strict(store: Store) -> None:
    store.article("a", body=LONG_BODY)
    assert store.lint().code == 0
    store.article("b", capsule=None, body=LONG_BODY)
    assert store.lint().code == 0
    strict = store.lint("--strict")
    assert strict.code == 1 and "warning[no-capsule]" in strict.out and "--strict" in strict.err
    doc = store.lint("--strict", "--json").json()
    assert doc["clean"] is False and doc["strict"] is True


def test_exit_1_on_errors(store: Store) -> None:
    store.article("a", body="[[gone]]\n" + LONG_BODY)
    assert store.lint().code == 1
    assert store.lint("--strict").code == 1


def test_empty_store_is_clean(store: Store) -> None:
    result = store.lint("--json")
    assert result.code == 0 and result.json()["findings"] == []


def test_no_store_exits_2(project: Path) -> None:
    result = run_cmd("canon", "lint", cwd=project)
    assert result.code == 2
    assert result.err.startswith("error[no-store]: No .canon/ store at ")
    assert "hint: Run `canon init`" in result.err and result.out == ""
    as_json = run_cmd("canon", "lint", "--format", "json", cwd=project)
    assert as_json.code == 2 and as_json.json()["error"]["code"] == "no-store"
    sarif = run_cmd("canon", "lint", "--format", "sarif", cwd=project)
    assert sarif.code == 2 and sarif.out == ""


def test_bad_config_exits_2(store: Store) -> None:
    store.write(".canon/config.toml", "mounts = [\n")
    result = store.lint()
    assert result.code == 2 and result.err.startswith("error[bad-config]")


def test_unknown_format_exits_2(store: Store) -> None:
    result = store.lint("--format", "xml")
    assert result.code == 2 and "error[usage]" in result.err and "sarif" in result.err


def test_unknown_option_exits_2(store: Store) -> None:
    assert store.lint("--frobnicate").code == 2


def test_nothing_to_lint_exits_2(store: Store) -> None:
    result = store.lint("no/such/thing")
    assert result.code == 2 and result.err.startswith("error[nothing-to-lint]")
    gone = store.lint(".canon/journal/2026-01-01-missing.md")
    assert gone.code == 2 and gone.err.startswith("error[nothing-to-lint]")


def test_unknown_mount_target_exits(store: Store) -> None:
    result = store.lint("pond:x")
    assert result.code != 0 and "error[unknown-mount]" in result.err


def test_targets_select_articles(store: Store) -> None:
    store.article("src", capsule=None, body=LONG_BODY)
    store.article("src/core", capsule=None, body=LONG_BODY)
    store.article("src/core/config", capsule=None, body=LONG_BODY)
    store.article("lib", capsule=None, body=LONG_BODY)
    store.journal("bad-name.md", "x\n")

    def linted(*args: str) -> list[str]:
        result = store.lint("--json", *args)
        return sorted({f["path"].removeprefix(".canon/") for f in result.json()["findings"]})

    assert linted("src/core") == ["articles/src/core.md", "articles/src/core/config.md"]
    assert linted("lib", "src/core/config") == ["articles/lib.md", "articles/src/core/config.md"]
    # An asset path with no article of its own lints the article that governs it.
    assert linted("src/core/config/deep.ts") == ["articles/src/core/config.md"]
    assert linted(".canon/articles/lib.md") == ["articles/lib.md"]
    assert linted(".canon/journal/bad-name.md") == ["journal/bad-name.md"]
    assert linted(".canon/journal") == ["journal/bad-name.md"]
    assert len(linted(".")) == 5


def test_target_in_a_mount(store: Store, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / ".canon" / "articles").mkdir(parents=True)
    (lake / ".canon" / "articles" / "prices.md").write_text("no front matter\n" + LONG_BODY, encoding="utf-8")
    store.article("a", body="[[lake:prices]]\n" + LONG_BODY)
    assert store.lint("--json", "--mount", str(lake)).json()["findings"] == []  # mounts are not linted by default
    result = store.lint("--json", "--mount", str(lake), "lake:")
    (f,) = result.json()["findings"]
    assert f["rule"] == "no-capsule" and f["path"].endswith("lake/.canon/articles/prices.md")


def test_root_option(store: Store, tmp_path: Path) -> None:
    store.article("a", body="[[gone]]\n" + LONG_BODY)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_cmd("canon", "lint", "--root", str(store.root), cwd=elsewhere)
    assert result.code == 1 and "dead-link" in result.out
    assert run_cmd("canon", "lint", "--root", str(tmp_path / "nope"), cwd=elsewhere).code == 2


def test_base_outside_git_is_a_clear_error(store: Store) -> None:
    # journal-changed itself is tested against real repositories in tests/canon/git/.
    store.article("a", body=LONG_BODY)
    assert store.lint().code == 0  # without --since, no git needed
    result = store.lint("--since", "HEAD")
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("error[not-a-git-checkout]: ")
    helped = run_cmd("canon", "lint", "--help", cwd=store.root)
    assert helped.code == 0 and "--since" in helped.out


def test_pylon_canon_lint_and_dash_c(store: Store, tmp_path: Path) -> None:
    store.article("a", body="[[gone]]\n" + LONG_BODY)
    result = run_cmd("pylon", "canon", "lint", "--json", cwd=store.root)
    assert result.code == 1 and result.json()["errors"] == 1
    dash_c = run_cmd("canon", "-C", str(store.root), "lint", cwd=tmp_path)
    assert dash_c.code == 1 and dash_c.out.startswith(".canon/articles/a.md:5:")


def test_no_progress_or_colour_on_a_pipe(store: Store) -> None:
    for i in range(30):
        store.article(f"a{i}", body=LONG_BODY)
    result = store.lint()
    assert result.err == "canon lint: clean (30 articles, 0 journal entries).\n"
    assert "\x1b[" not in result.err + result.out


@pytest.mark.slow
def test_large_store_lints_in_parallel_with_the_same_findings(store: Store) -> None:
    for i in range(4100):
        store.article(
            f"mod{i % 7}/a{i}", capsule=None if i % 1000 == 0 else "Capsule.", body=f"[[gone{i % 500 == 0}]]\n"
        )
    serial = store.lint("--json", env={"PYLON_LINT_JOBS": "1"})
    parallel = store.lint("--json", env={"PYLON_LINT_JOBS": "2"})
    assert serial.code == parallel.code == 1
    assert serial.json() == parallel.json()
    assert serial.json()["articles"] == 4100


def test_pre_commit_hook_definition() -> None:
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = [h for h in hooks if h["id"] == "canon-lint"]
    assert hook["entry"] == "canon lint"
    assert hook["language"] == "python"
    assert "files" not in hook  # it runs on every commit: a deletion-only commit lists no file
    assert hook["always_run"] is True
    assert hook["pass_filenames"] is False
    assert hook["require_serial"] is True
    assert hook["name"]
    (check,) = [h for h in hooks if h["id"] == "canon-check"]
    assert check["always_run"] is True and check["entry"] == "canon check --staged"


def test_store_folders_that_are_files(project: Path) -> None:
    (project / ".canon").mkdir()
    (project / ".canon" / "articles").write_text("not a folder\n")
    (project / ".canon" / "journal").write_text("not a folder\n")
    result = run_cmd("canon", "lint", "--json", cwd=project)
    assert result.code == 1
    found = [(f["rule"], f["path"]) for f in result.json()["findings"]]
    assert found == [("unreadable", ".canon/articles"), ("unreadable", ".canon/journal")]


def _imports(store: Store) -> set[str]:
    import subprocess
    import sys

    from tests.conftest import script

    proc = subprocess.run(
        [sys.executable, "-X", "importtime", script("canon"), "lint"], cwd=store.root, capture_output=True, text=True
    )
    return {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_simple_front_matter_is_checked_without_yaml(store: Store) -> None:
    store.article("a", body=LONG_BODY)
    store.article("b", '---\ncapsule: B.\nupdated: 2026-01-31\naliases:\n  - bee\ntags: [x, "y z"]\n---\n' + LONG_BODY)
    names = _imports(store)
    heavy = {n for n in names if n.split(".")[0] in ("yaml", "frontmatter", "rich", "pygit2", "watchdog")}
    assert heavy == set()


def test_unusual_front_matter_is_checked_with_yaml(store: Store) -> None:
    store.article("a", "---\ncapsule: A.\nnested: {k: v}\n---\n" + LONG_BODY)
    names = _imports(store)
    assert "yaml" in names and not any(n.split(".")[0] in ("rich", "pygit2", "watchdog") for n in names)


def test_progress_bar_only_on_a_terminal(store: Store) -> None:
    import os
    import pty
    import subprocess

    from tests.conftest import script

    for i in range(2100):
        store.article(f"m/a{i}", "---\ncapsule: C.\n---\nbody\n")
    master, slave = pty.openpty()
    proc = subprocess.Popen([script("canon"), "lint"], cwd=store.root, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    assert proc.stdout is not None
    out = proc.stdout.read()
    proc.stdout.close()
    assert proc.wait(timeout=60) == 0 and out == b""
    seen = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        seen += data
    os.close(master)
    assert b"canon lint" in seen and b"%" in seen  # the bar, then the summary
    piped = store.lint()
    assert piped.err == "canon lint: clean (2100 articles, 0 journal entries).\n"
