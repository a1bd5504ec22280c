"""Both hooks of this repository's .pre-commit-hooks.yaml, run by the real `pre-commit` (from the
package index) inside real `git commit`s of a scratch repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.canon.git.conftest import GitStore
from tests.conftest import MakeRepo

ROOT = Path(__file__).resolve().parents[3]
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")  # the hook environment is built once per session


def _commit(repo: GitStore, env: dict[str, str], *paths: str) -> subprocess.CompletedProcess[str]:
    # git sends a hook's output to stderr; read both as one stream.
    return subprocess.run(
        ["git", "commit", "-q", "-m", "change", *paths],
        cwd=repo.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


# slow: pre-commit builds its own environment with pylon in it (about 35 s); the hooks' commands
# (`canon check --staged`, `canon lint`) run in the default tier through tests/canon/git.
@pytest.mark.slow
@pytest.mark.skipif(not PRE_COMMIT.exists(), reason="pre-commit is not installed (pip install pre-commit)")
def test_hooks_gate_real_commits(make_repo: MakeRepo, pre_commit_home: Path) -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs this repository's git checkout")
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    repo = GitStore(make_repo())
    repo.canon("init")
    repo.write("src/app.py")
    repo.write("README.md")
    repo.article("src")
    repo.write(
        ".canon/journal/2026-01-02-start.md", "---\nsubject: [src]\nlogged: 2026-01-02T00:00:00Z\n---\nStarted.\n"
    )
    repo.write(
        ".pre-commit-config.yaml",
        f"repos:\n  - repo: {ROOT}\n    rev: {rev}\n    hooks:\n      - id: canon-check\n      - id: canon-lint\n",
    )
    repo.commit("initial")
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)}
    subprocess.run([str(PRE_COMMIT), "install"], cwd=repo.root, env=env, check=True, capture_output=True)

    repo.append("src/app.py")
    repo.git("add", "src/app.py")
    refused = _commit(repo, env)
    assert refused.returncode == 1, refused
    assert "canon check" in refused.stdout and "Failed" in refused.stdout
    assert "src/app.py:1: error[article-not-updated]" in refused.stdout

    repo.append(".canon/articles/src.md", "app now prints twice\n")
    repo.append("README.md", "unstaged, not judged\n")
    # `git commit PATH...` runs the hooks on a temporary index (GIT_INDEX_FILE); it holds both.
    passed = _commit(repo, env, "src/app.py", ".canon/articles/src.md")
    assert passed.returncode == 0, passed.stdout
    assert "canon check" in passed.stdout and "Passed" in passed.stdout

    repo.append(".canon/journal/2026-01-02-start.md", "edited later\n")
    repo.git("add", ".canon/journal/2026-01-02-start.md")
    journal = _commit(repo, env)
    assert journal.returncode == 1
    assert "canon lint" in journal.stdout and "error[journal-changed] was modified since HEAD" in journal.stdout
    repo.git("checkout", "HEAD", "--", ".canon/journal/2026-01-02-start.md")

    # Commits that only delete files: pre-commit lists no staged file for them (its diff filter
    # leaves out D), so only `always_run` makes the hooks judge them at all.
    repo.git("rm", "-q", "src/app.py")
    gone = _commit(repo, env)
    assert gone.returncode == 1, gone.stdout
    assert "src/app.py:1: error[article-outlived]" in gone.stdout
    repo.git("reset", "-q", "--hard")

    repo.git("rm", "-q", ".canon/journal/2026-01-02-start.md")
    entry = _commit(repo, env)
    assert entry.returncode == 1, entry.stdout
    assert "error[journal-changed] was deleted since HEAD" in entry.stdout
    repo.git("reset", "-q", "--hard")

    # A deletion the article records passes both.
    repo.git("rm", "-q", "src/app.py")
    repo.append(".canon/articles/src.md", "app.py is gone\n")
    repo.git("add", ".canon/articles/src.md")
    recorded = _commit(repo, env)
    assert recorded.returncode == 0, recorded.stdout
