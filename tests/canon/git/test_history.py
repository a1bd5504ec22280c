"""`canon stale` and `canon coverage` against real git history (dates set with GIT_*_DATE)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.canon.git.conftest import GitStore
from tests.conftest import MakeRepo


def _commit_at(repo: GitStore, message: str, when: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", "add", "-A"], cwd=repo.root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo.root, env=env, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo.root, capture_output=True, text=True).stdout.strip()


def test_stale_counts_the_commits_after_the_article(make_repo: MakeRepo) -> None:
    repo = GitStore(make_repo())
    repo.canon("init")
    repo.write("src/core/config.py")
    repo.write("src/app.py")
    repo.article("src/core")
    repo.article("src")
    _commit_at(repo, "start", "2026-01-01T00:00:00Z")
    repo.append("src/core/config.py")
    first = _commit_at(repo, "config: env first", "2026-01-11T00:00:00Z")
    repo.append("src/core/config.py")
    second = _commit_at(repo, "config: secrets out", "2026-01-21T00:00:00Z")
    repo.append("src/app.py")
    repo.append(".canon/articles/src.md", "kept up to date\n")  # same commit: src is current
    _commit_at(repo, "app and its article", "2026-01-25T00:00:00Z")
    doc = repo.canon("stale", "--json").json()
    assert doc["commits_scanned"] == 4
    (row,) = doc["stale"]
    assert row["address"] == "src/core" and row["commits_behind"] == 2 and row["days_behind"] == 20.0
    assert [c["sha"] for c in row["commits"]] == [second, first]
    assert row["commits"][0]["paths"] == ["src/core/config.py"] and row["last_change"]["subject"] == "start"
    assert repo.canon("stale", "--days", "21", "--json").json()["stale"] == []
    text = repo.canon("stale")
    assert text.code == 0
    lines = text.out.splitlines()
    assert lines[0] == "1 stale article (4 commits scanned)"
    assert lines[2].split()[:4] == ["src/core", "2", "20d", "2026-01-01"]
    assert second[:10] in lines[2] and "\x1b[" not in text.out
    # An uncommitted edit of the article means someone is updating it.
    repo.append(".canon/articles/src/core.md", "updated\n")
    assert repo.canon("stale", "--json").json()["stale"] == []


def test_stale_with_no_commits_and_outside_git(make_repo: MakeRepo, project: Path) -> None:
    fresh = GitStore(make_repo())
    fresh.canon("init")
    result = fresh.canon("stale")
    assert result.code == 0 and result.out.startswith("No article is behind its assets (0 articles, 0 commits")
    plain = GitStore(project)
    plain.canon("init")
    assert plain.canon("stale").code == 2 and plain.canon("coverage").code == 2


def test_coverage_share_folders_and_churn(repo: GitStore) -> None:
    for i in range(3):
        repo.write(f"tests/test_{i}.py")
    repo.write("tools/a/x.sh")
    repo.write("README.md")
    repo.commit("more files")
    repo.append("tools/a/x.sh")
    repo.commit("tools churn")
    repo.append("tools/a/x.sh")
    repo.commit("tools churn again")
    repo.append("tools/a/x.sh")
    repo.commit("and again")
    doc = repo.canon("coverage", "--json").json()
    tracked = subprocess.run(["git", "ls-files"], cwd=repo.root, capture_output=True, text=True).stdout.split()
    assets = [p for p in tracked if not p.startswith(".canon/")]
    assert doc["tracked"] == len(assets) == 8
    assert doc["governed"] == 2 and doc["share"] == 0.25
    assert doc["articles"] == {"src": 1, "src/core": 1}
    folders = [(f["folder"], f["files"], f["churn"], f["loose"]) for f in doc["ungoverned"]]
    # tools/ changed most in the window (4 times: added, then three edits), so it comes first.
    assert folders == [("tools", 1, 4, False), ("tests", 3, 3, False), ("", 1, 1, True), ("docs", 1, 1, False)]
    text = repo.canon("coverage").out.splitlines()
    assert text[0] == "2 of 8 tracked files have a governing article (25.0%)."
    assert text[3].split() == ["tools/", "1", "4"] and "(top-level files)" in "\n".join(text)


def test_coverage_lists_broad_articles(make_repo: MakeRepo) -> None:
    repo = GitStore(make_repo())
    repo.canon("init")
    for i in range(201):
        repo.write(f"lib/m{i}.py")
    repo.article("lib")
    repo.commit("big")
    doc = repo.canon("coverage", "--json").json()
    assert doc["broad"] == [{"article": "lib", "files": 201}] and doc["share"] == 1.0
    assert "Articles governing 200 files or more" in repo.canon("coverage").out


def test_tables_are_rich_on_a_terminal_and_plain_on_a_pipe(repo: GitStore) -> None:
    from tests.conftest import run_on_terminal

    repo.write("tools/x.sh")
    repo.commit("tools")
    code, shown = run_on_terminal("canon", "coverage", cwd=repo.root)
    assert code == 0 and "┃" in shown.decode() and "tools/" in shown.decode()  # a rich table's box
    piped = repo.canon("coverage")
    assert "┃" not in piped.out and "\x1b[" not in piped.out
    assert piped.out.splitlines()[2].split() == ["folder", "files", "changes"]


def test_stale_and_coverage_of_a_project_in_a_subfolder(make_repo: MakeRepo) -> None:
    root = GitStore(make_repo())
    app = GitStore(root.root / "app")
    app.root.mkdir()
    app.canon("init")
    app.write("lib/x.py")
    app.article("lib")
    root.write("other/y.py")  # outside the project: neither tracked here nor churn
    root.commit("init")
    app.append("lib/x.py")
    root.append("other/y.py")
    root.commit("both")
    stale = app.canon("stale", "--json").json()
    assert [(s["address"], s["commits_behind"]) for s in stale["stale"]] == [("lib", 1)]
    assert stale["stale"][0]["commits"][0]["paths"] == ["app/lib/x.py"]
    cover = app.canon("coverage", "--json").json()
    assert (cover["tracked"], cover["governed"], cover["ungoverned"]) == (1, 1, [])


def _start_and_branch(repo: GitStore, store: GitStore, asset: str, address: str) -> None:
    """A first commit with `asset` and its article `address`, then the branch `feature` checked out."""
    store.write(asset)
    store.article(address)
    _commit_at(repo, "start", "2026-01-01T00:00:00Z")
    repo.git("checkout", "-q", "-b", "feature")


def _merge_at(repo: GitStore, branch: str, when: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", "merge", "-q", "--no-edit", branch], cwd=repo.root, env=env, check=True)


def test_stale_by_ancestry_counts_a_merged_branch_dated_before_the_update(make_repo: MakeRepo) -> None:
    # The branch's commit is dated before the article's update, but the update does not descend from
    # it: the article never saw that change. Log date order would hide it behind the update.
    repo = GitStore(make_repo())
    repo.canon("init")
    _start_and_branch(repo, repo, "src/core/config.py", "src/core")
    repo.append("src/core/config.py", "branch change\n")
    branch = _commit_at(repo, "config on a branch", "2026-01-05T00:00:00Z")
    repo.git("checkout", "-q", "main")
    repo.append(".canon/articles/src/core.md", "reviewed on main\n")
    update = _commit_at(repo, "article update", "2026-01-10T00:00:00Z")
    _merge_at(repo, "feature", "2026-01-12T00:00:00Z")
    doc = repo.canon("stale", "--json").json()
    assert doc["commits_scanned"] == 3  # the merge connects history; it is not counted
    (row,) = doc["stale"]
    assert row["address"] == "src/core" and row["commits_behind"] == 1
    assert [c["sha"] for c in row["commits"]] == [branch] and row["last_change"]["sha"] == update
    assert row["days_behind"] == 0.0  # dated before the update: behind by ancestry, not by days
    # git's own answer: commits reachable from HEAD and not from the article's commit, touching its folder.
    truth = repo.git("rev-list", "--no-merges", "--full-history", "HEAD", f"^{update}", "--", "src/core").split()
    assert truth == [branch]
    # Once the article is updated after the merge, it is current.
    repo.append(".canon/articles/src/core.md", "and the branch's change\n")
    _commit_at(repo, "article after merge", "2026-01-13T00:00:00Z")
    assert repo.canon("stale", "--json").json()["stale"] == []


def test_stale_ancestry_when_the_article_was_updated_on_the_branch(make_repo: MakeRepo) -> None:
    # The article updated on a branch after a main commit dated earlier: the main commit is not an
    # ancestor of that update, so it stays behind; the branch's own earlier commit is covered.
    repo = GitStore(make_repo(name="sub"))
    app = GitStore(repo.root / "app")  # a project in a sub-folder: the log pass is path-limited
    app.root.mkdir()
    app.canon("init")
    _start_and_branch(repo, app, "lib/x.py", "lib")
    app.append("lib/x.py", "on the branch\n")
    covered = _commit_at(repo, "branch change", "2026-01-02T00:00:00Z")
    app.append(".canon/articles/lib.md", "branch reviewed\n")
    _commit_at(repo, "branch article", "2026-01-03T00:00:00Z")
    repo.git("checkout", "-q", "main")
    app.write("lib/y.py")
    main_change = _commit_at(repo, "main change", "2026-01-02T12:00:00Z")  # before the branch article
    repo.write("elsewhere.txt")  # outside the project: a commit the path-limited pass skips
    _commit_at(repo, "elsewhere", "2026-01-21T00:00:00Z")
    _merge_at(repo, "feature", "2026-01-22T00:00:00Z")
    doc = app.canon("stale", "--json").json()
    (row,) = doc["stale"]
    assert row["address"] == "lib" and row["commits_behind"] == 1
    assert [c["sha"] for c in row["commits"]] == [main_change] and covered not in str(doc)
