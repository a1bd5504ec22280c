"""`canon check`: the write-after gate, judged against change sets git itself reports."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.canon.git.conftest import GitStore
from tests.conftest import MakeRepo, git


def test_asset_change_without_its_article_fails_and_with_it_passes(repo: GitStore) -> None:
    repo.append("src/core/config.py")
    result = repo.canon("check")
    assert result.code == 1
    assert result.out == (
        "src/core/config.py:1: error[article-not-updated] changed, but its article src/core did "
        "not change: review .canon/articles/src/core.md and update it (canon write src/core ...)\n"
    )
    assert result.err == "canon check: 1 finding in 1 changed asset (working tree against HEAD).\n"
    repo.append(".canon/articles/src/core.md", "Also: X is now read from the environment.\n")
    clean = repo.canon("check")
    assert clean.code == 0 and clean.out == ""
    assert clean.err == "canon check: clean (1 changed asset, working tree against HEAD).\n"


def test_only_the_governing_article_counts(repo: GitStore) -> None:
    repo.append("src/core/config.py")
    repo.append(".canon/articles/src.md", "edit of the parent\n")  # src does not govern config.py
    assert repo.canon("check").code == 1
    repo.write("src/new.py")  # untracked: added, governed by src, which changed
    repo.write("docs/other.md")  # ungoverned: no finding
    doc = repo.canon("check", "--json").json()
    assert [f["path"] for f in doc["findings"]] == ["src/core/config.py"]
    assert doc["assets"] == 3 and doc["articles_changed"] == ["src"]


def test_staged_judges_the_index_only(repo: GitStore) -> None:
    repo.append("src/app.py")
    assert repo.canon("check", "--staged").code == 0  # nothing staged
    repo.git("add", "src/app.py")
    staged = repo.canon("check", "--staged")
    assert staged.code == 1 and staged.out.startswith("src/app.py:1: error[article-not-updated]")
    repo.append(".canon/articles/src.md", "new fact\n")  # changed on disk but not staged
    assert repo.canon("check", "--staged").code == 1
    repo.git("add", ".canon/articles/src.md")
    assert repo.canon("check", "--staged").code == 0


def test_warn_only_exits_0_and_downgrades(repo: GitStore) -> None:
    repo.append("src/app.py")
    result = repo.canon("check", "--warn-only", "--format", "github")
    assert result.code == 0
    assert result.out.startswith("::warning file=src/app.py,line=1,title=canon article-not-updated::changed")
    assert "(--warn-only: not failing)" in result.err


def test_rename_names_the_exact_canon_mv(repo: GitStore) -> None:
    repo.git("mv", "src/core", "src/engine")
    result = repo.canon("check", "--staged")
    assert result.code == 1
    assert result.out == (
        "src/engine/config.py:1: error[article-not-moved] renamed from src/core/config.py; its "
        "article src/core did not move: canon mv src/core src/engine\n"
    )
    doc = repo.canon("check", "--staged", "--json").json()
    assert doc["moves"] == [
        {
            "from": "src/core",
            "to": "src/engine",
            "renames": [["src/core/config.py", "src/engine/config.py"]],
            "conflict": None,
        }
    ]
    # Running the named command fixes it (git mv for the article is what canon mv did on disk).
    assert repo.canon("mv", "src/core", "src/engine").code == 0
    repo.git("add", "-A")
    assert repo.canon("check", "--staged").code == 0


def test_rename_of_a_file_with_its_own_article(repo: GitStore) -> None:
    repo.article("src/app")
    repo.commit("article for app")
    repo.git("mv", "src/app.py", "src/main.py")
    result = repo.canon("check", "--staged")
    assert result.code == 1 and result.out.endswith("its article src/app did not move: canon mv src/app src/main\n")


def test_rename_within_the_governed_folder_is_a_change(repo: GitStore) -> None:
    repo.git("mv", "src/core/config.py", "src/core/settings.py")
    result = repo.canon("check", "--staged")
    assert result.code == 1
    assert "error[article-not-updated] renamed from src/core/config.py, but its article src/core" in result.out


def test_rename_onto_an_existing_article_is_not_a_mv(repo: GitStore) -> None:
    repo.article("src/engine")
    repo.commit("engine article")
    repo.git("mv", "src/core", "src/engine")
    doc = repo.canon("check", "--staged", "--json").json()
    assert doc["moves"][0]["conflict"] == "an article already exists at src/engine: merge the two by hand"
    assert "canon mv" not in doc["findings"][0]["message"]
    assert doc["findings"][0]["message"].endswith(
        "fold it into src/engine (canon write src/engine ...), then remove it (git rm .canon/articles/src/core.md)"
    )


def test_deleted_asset_with_a_living_article(repo: GitStore) -> None:
    repo.git("rm", "-q", "src/core/config.py")
    result = repo.canon("check", "--staged")
    assert result.code == 1
    assert result.out == (
        "src/core/config.py:1: error[article-outlived] deleted, but its article src/core still "
        "exists and did not change: review .canon/articles/src/core.md and update it (canon write "
        "src/core ...) or, if nothing it describes remains, remove it "
        "(git rm .canon/articles/src/core.md)\n"
    )
    repo.git("rm", "-q", ".canon/articles/src/core.md")
    assert repo.canon("check", "--staged").code == 0


def test_first_commit_has_no_head(make_repo: MakeRepo) -> None:
    store = GitStore(make_repo())
    store.canon("init")
    store.write("src/app.py")
    store.article("src")
    store.git("add", "src/app.py")
    result = store.canon("check", "--staged")
    assert result.code == 1 and "src/app.py:1: error[article-not-updated] added" in result.out
    store.git("add", "-A")
    staged = store.canon("check", "--staged")
    assert staged.code == 0, staged
    assert "canon check: clean" in staged.err
    worktree = store.canon("check")
    assert worktree.code == 0 and "the empty tree" in worktree.err


def test_since_judges_what_the_branch_adds(repo: GitStore) -> None:
    repo.git("checkout", "-q", "-b", "feature")
    repo.append("src/app.py")
    repo.commit("app change")
    result = repo.canon("check", "--since", "main")
    assert result.code == 1 and result.out.startswith("src/app.py:1:")
    # main moving on does not matter: the base is the merge-base.
    repo.git("checkout", "-q", "main")
    repo.append("src/core/config.py")
    repo.commit("main moves")
    repo.git("checkout", "-q", "feature")
    doc = repo.canon("check", "--since", "main", "--json").json()
    assert [f["path"] for f in doc["findings"]] == ["src/app.py"]
    assert doc["base_label"].startswith("main (merge-base ")


def test_since_an_unknown_revision(repo: GitStore) -> None:
    result = repo.canon("check", "--since", "no-such-branch")
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("error[bad-revision]: --since no-such-branch: 'no-such-branch' is not a commit")
    assert repo.canon("check", "--staged", "--since", "main").code == 2
    assert repo.canon("check", "--since", "--all").code == 2


def test_shallow_clone_names_git_fetch_deepen(repo: GitStore, tmp_path: Path) -> None:
    first = repo.git("rev-parse", "HEAD").strip()
    for i in range(3):
        repo.append("src/app.py", f"{i}\n")
        repo.append(".canon/articles/src.md", f"fact {i}\n")
        repo.commit(f"c{i}")
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone)], check=True)
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    result = GitStore(clone).canon("check", "--since", first)
    assert result.code == 2
    assert "shallow clone" in result.err and "git fetch --deepen" in result.err
    doc = json.loads(GitStore(clone).canon("check", "--since", first, "--json").out)
    assert doc["error"]["code"] == "bad-revision" and doc["error"]["shallow"] is True
    assert GitStore(clone).canon("check", "--since", "HEAD").code == 0  # what it has still works
    git(clone, "fetch", "-q", "--deepen=5")
    assert GitStore(clone).canon("check", "--since", first).code == 0


def test_linked_worktree(repo: GitStore, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", "-b", "side", str(linked))
    other = GitStore(linked)
    other.append("src/app.py")
    other.git("add", "src/app.py")
    result = other.canon("check", "--staged")
    assert result.code == 1 and result.out.startswith("src/app.py:1: error[article-not-updated]")
    assert repo.canon("check", "--staged").code == 0  # the main worktree's index is its own


def test_relative_git_index_file_as_a_hook_sees_it(repo: GitStore) -> None:
    # `git commit PATH` runs hooks with GIT_INDEX_FILE pointing at a temporary index (relative to
    # the top-level); that index, not .git/index, is what the commit records.
    repo.append("src/app.py")
    env = {"GIT_INDEX_FILE": ".git/hook-index"}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=repo.root, env={**os.environ, **env}, check=True)
    subprocess.run(["git", "add", "src/app.py"], cwd=repo.root, env={**os.environ, **env}, check=True)
    assert repo.canon("check", "--staged").code == 0  # the real index has nothing staged
    hooked = repo.canon("check", "--staged", env=env)
    assert hooked.code == 1 and hooked.out.startswith("src/app.py:1:")


def test_sarif_uses_the_check_rules(repo: GitStore) -> None:
    repo.append("src/app.py")
    doc = json.loads(repo.canon("check", "--format", "sarif").out)
    run = doc["runs"][0]
    assert doc["version"] == "2.1.0" and run["tool"]["driver"]["fullName"] == "canon check (pylon-kit)"
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert ids == ["article-not-updated", "article-not-moved", "article-outlived"]
    (result,) = run["results"]
    assert result["ruleId"] == "article-not-updated" and result["ruleIndex"] == 0
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "src/app.py",
        "uriBaseId": "%SRCROOT%",
    }


def test_no_store_and_no_git(make_repo: MakeRepo, project: Path) -> None:
    bare = GitStore(make_repo(name="nostore"))
    result = bare.canon("check")
    assert result.code == 2 and result.err.startswith("error[no-store]:")
    plain = GitStore(project)
    plain.canon("init")
    outside = plain.canon("check")
    assert outside.code == 2 and outside.err.startswith("error[not-a-git-checkout]:")


def test_project_in_a_subfolder_of_the_repository(make_repo: MakeRepo) -> None:
    root = make_repo()
    store = GitStore(root / "app")
    store.root.mkdir()
    store.canon("init")
    store.write("lib/x.py")
    store.article("lib")
    GitStore(root).write("other/y.py")  # outside the project: not judged
    GitStore(root).commit("init")
    store.append("lib/x.py")
    GitStore(root).append("other/y.py")
    result = store.canon("check", "--format", "github")
    assert result.code == 1
    assert result.out.startswith("::error file=app/lib/x.py,line=1,")  # repository-relative
    assert "1 changed asset" in result.err


def test_moving_one_file_out_of_a_folder_does_not_move_its_article(repo: GitStore) -> None:
    repo.write("src/core/other.py")
    repo.commit("second core file")
    (repo.root / "src/engine").mkdir()
    repo.git("mv", "src/core/config.py", "src/engine/config.py")
    doc = repo.canon("check", "--staged", "--json").json()
    assert doc["moves"] == []  # src/core/ is still there: its article stays
    # ... but the file left what src/core describes, and entered what src describes: both are findings.
    assert [(f["rule"], f["path"]) for f in doc["findings"]] == [
        ("article-outlived", "src/core/config.py"),
        ("article-not-updated", "src/engine/config.py"),
    ]
    assert doc["findings"][0]["message"] == (
        "renamed to src/engine/config.py, out of the reach of its article src/core, which did not change: review "
        ".canon/articles/src/core.md and update it (canon write src/core ...)"
    )
    assert "its article src did not change" in doc["findings"][1]["message"]


def _check_staged(repo: GitStore) -> list[tuple[str, str]]:
    return [(f["rule"], f["path"]) for f in repo.canon("check", "--staged", "--json").json()["findings"]]


def test_rename_out_to_an_ungoverned_place_is_a_finding(repo: GitStore) -> None:
    repo.git("mv", "src/app.py", "docs/app.py")  # docs/ has no article: nothing governs the new path
    result = repo.canon("check", "--staged")
    assert result.code == 1
    assert result.out == (
        "src/app.py:1: error[article-outlived] renamed to docs/app.py, out of the reach of its "
        "article src, which did not change: review .canon/articles/src.md and update it "
        "(canon write src ...)\n"
    )
    repo.append(".canon/articles/src.md", "app.py now lives in docs/\n")
    repo.git("add", "-A")
    assert repo.canon("check", "--staged").code == 0


def test_a_folder_whose_files_go_several_ways(repo: GitStore) -> None:
    repo.write("src/core/util.py")
    repo.commit("second core file")
    for folder in ("lib", "util"):
        (repo.root / folder).mkdir()
    repo.git("mv", "src/core/config.py", "lib/config.py")
    repo.git("mv", "src/core/util.py", "util/util.py")
    assert (repo.root / "src/core").is_dir()  # git mv leaves the emptied folder: no asset remains in it
    result = repo.canon("check", "--staged")
    assert result.code == 1
    lines = result.out.splitlines()
    assert [line.split(" ", 2)[:2] for line in lines] == [
        ["lib/config.py:1:", "error[article-not-moved]"],
        ["util/util.py:1:", "error[article-not-moved]"],
    ]
    assert all(
        line.endswith(
            "(files below src/core moved to several places (lib, util)): move it by hand "
            "(canon mv src/core NEW) or update it (canon write src/core ...)"
        )
        for line in lines
    )


def test_deletion_is_judged_against_the_articles_on_disk(repo: GitStore) -> None:
    # A nearer article added in the same change set governs the deleted file now: it changed, so clean.
    repo.article("src/core/config")
    repo.git("rm", "-q", "src/core/config.py")
    repo.git("add", "-A")
    assert _check_staged(repo) == []
    repo.git("reset", "-q", "--hard")
    # The asset and its own article deleted together: nothing is left to update.
    repo.git("rm", "-q", "-r", "src/core", ".canon/articles/src/core.md")
    assert _check_staged(repo) == []
    repo.git("reset", "-q", "--hard")
    # An article deleted in an earlier commit no longer governs: the one on disk (src) does.
    repo.git("rm", "-q", ".canon/articles/src/core.md")
    repo.commit("core article folded into src")
    repo.git("rm", "-q", "src/core/config.py")
    assert _check_staged(repo) == [("article-outlived", "src/core/config.py")]


def test_a_file_name_that_is_not_utf8_in_json_and_sarif(repo: GitStore) -> None:
    import base64
    from urllib.parse import unquote_to_bytes

    name = b"src/caf\xe9.py"
    (repo.root / os.fsdecode(name)).write_bytes(b"x\n")  # untracked: added, governed by src
    doc = repo.canon("check", "--json")
    assert doc.code == 1 and "\ufffd" not in doc.out  # valid UTF-8 JSON, no lost byte
    (finding,) = doc.json()["findings"]
    assert finding["path"] == "src/caf\\351.py" and base64.b64decode(finding["path_b64"]) == name
    sarif = repo.canon("check", "--format", "sarif")
    assert sarif.code == 1 and "\ufffd" not in sarif.out
    (result,) = json.loads(sarif.out)["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "src/caf%E9.py" and unquote_to_bytes(uri) == name
    # A rename from that name puts it in the message too: readable there, exact in the property bag.
    repo.git("add", "-A")
    repo.commit("cafe")
    repo.git("mv", os.fsdecode(name), "src/cafe.py")
    moved = json.loads(repo.canon("check", "--staged", "--format", "sarif").out)["runs"][0]["results"][0]
    assert "src/caf\\351.py" in moved["message"]["text"]
    assert name in base64.b64decode(moved["message"]["properties"]["text_b64"])
    lint = repo.canon("lint", "--format", "sarif")
    assert lint.code == 0 and "\ufffd" not in lint.out
