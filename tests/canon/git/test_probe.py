"""`canon check` lists only the article folders its change set leads through (ArticleProbe):
its answers must be the full walk's, whatever the tree holds and whatever the change set does."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from pylon.canon.git.changes import change_set
from pylon.canon.git.check import judge
from pylon.canon.git.govern import Governance
from pylon.canon.git.run import open_repo
from pylon.canon.store import ArticleProbe, open_project, walk_articles
from tests.canon.git.conftest import GitStore
from tests.conftest import MakeRepo, sized

NAMES = ["a", "b", "c d", "x.md", ".obsidian", ".trash", ".git", ".hidden", "é"]


def _tree(base: Path, rng: random.Random, depth: int = 0) -> None:
    for name in rng.sample(NAMES, rng.randrange(2, 6)):
        roll = rng.random()
        if roll < 0.35 or depth > 2:
            (base / f"{name}.md").write_text("x\n")
        elif roll < 0.6:
            (base / name).mkdir(exist_ok=True)
            _tree(base / name, rng, depth + 1)
        elif roll < 0.7:
            (base / f"{name}.md").mkdir(exist_ok=True)  # a folder named like an article
            _tree(base / f"{name}.md", rng, depth + 1)
        elif roll < 0.8:
            os.symlink("elsewhere", base / f"{name}.md")  # broken link
        elif roll < 0.9:
            (base / "target.txt").write_text("t\n")
            os.symlink("target.txt", base / f"{name}.md")  # link to a file: an article
        else:
            os.symlink(".", base / name)  # link to a folder: never entered


def test_probe_answers_as_the_walk_does(make_repo: MakeRepo) -> None:
    for seed in range(sized(24, 300)):
        rng = random.Random(seed)
        repo = GitStore(make_repo(name=f"r{seed}", commit=False))
        repo.canon("init")
        articles = repo.root / ".canon" / "articles"
        _tree(articles, rng)
        (repo.root / ".md").write_text("")
        store = open_project(str(repo.root)).store
        walked = list(walk_articles(store))
        full = {a.address for a in walked if a.is_article}
        candidates = {a.address for a in walked} | {"", ".md", "a/", "/a", "a//b", "zz", "a/zz/b"}
        for address in list(candidates):
            parts = address.split("/")
            candidates |= {"/".join(parts[:n]) for n in range(1, len(parts))}
        for folder, dirs, files in os.walk(articles, followlinks=True):  # inside linked and skipped folders too
            rel = os.path.relpath(folder, articles).replace(os.sep, "/")
            candidates |= {(f"{rel}/" if rel != "." else "") + f[:-3] for f in files if f.endswith(".md")}
            if rel.count("/") > 4:
                dirs[:] = []
        probe = ArticleProbe(store)
        for address in sorted(candidates):
            assert (address in probe) == (address in full), (seed, address)
        assert len(probe) == len(full) and set(probe) == full


def _random_changes(repo: GitStore, rng: random.Random, files: list[str], articles: list[str]) -> None:
    for _ in range(rng.randrange(1, 8)):
        roll = rng.random()
        live = [f for f in files if (repo.root / f).exists()]
        if roll < 0.3 and live:
            repo.append(rng.choice(live))
        elif roll < 0.45:
            new = f"{rng.choice(['src', 'src/core', 'lib', 'src/core/deep', 'top'])}/n{rng.randrange(9)}.py"
            repo.write(new)
            files.append(new)
        elif roll < 0.6 and live:
            (repo.root / rng.choice(live)).unlink()
        elif roll < 0.75 and live:
            old = rng.choice(live)
            new = f"{rng.choice(['src', 'lib', 'moved', 'src/core'])}/{Path(old).name}"
            if not (repo.root / new).exists():
                (repo.root / new).parent.mkdir(parents=True, exist_ok=True)
                repo.git("mv", old, new)
                files.append(new)
        elif roll < 0.85:
            address = rng.choice(articles)
            path = repo.root / ".canon" / "articles" / f"{address}.md"
            if path.exists() and rng.random() < 0.5:
                path.unlink()
            else:
                repo.article(address, body=f"revised {rng.random()}\n")
        else:
            old = rng.choice(articles)
            new = rng.choice(["moved", "src/engine", "lib2", "src/core/renamed"])
            src = repo.root / ".canon" / "articles" / f"{old}.md"
            dst = repo.root / ".canon" / "articles" / f"{new}.md"
            if src.exists() and not dst.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                if rng.random() < 0.5:
                    repo.git("add", "--", str(src))  # git mv needs it tracked
                    repo.git("mv", str(src), str(dst))
                else:
                    src.rename(dst)
        if rng.random() < 0.3:
            repo.git("add", "-A")


def test_check_with_the_probe_matches_the_full_walk(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    files = ["src/core/config.py", "src/core/deep/x.py", "src/app.py", "lib/util.py", "top/readme.md", "loose.py"]
    articles = ["src/core", "src", "src/app", "lib", "src/core/deep/x", "top"]
    for seed in range(sized(10, 80)):
        rng = random.Random(1000 + seed)
        repo = GitStore(make_repo(name=f"c{seed}", commit=False))
        repo.canon("init")
        for f in files:
            repo.write(f)
        for a in rng.sample(articles, rng.randrange(1, len(articles))):
            repo.article(a)
        repo.commit("start")
        if rng.random() < 0.3:  # another branch's state checked out: what is on disk is what counts
            repo.git("checkout", "-q", "-b", "other")
            _random_changes(repo, rng, list(files), articles)
            repo.commit("other")
        _random_changes(repo, rng, list(files), articles)
        monkeypatch.chdir(repo.root)
        project = open_project()
        repository = open_repo(project.root_dir)
        for staged in (False, True):
            changes = change_set(repository, staged=staged)
            probed = judge(Governance(project, repository.top, probe=True), changes, repository.top)
            walked = judge(Governance(project, repository.top), changes, repository.top)
            assert probed.findings == walked.findings, seed
            assert probed.moves == walked.moves and probed.articles_changed == walked.articles_changed, seed
