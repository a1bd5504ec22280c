"""`canon stale` against git's own answer on random histories with branches and merges.

For every article, git's truth is `git rev-list --no-merges --full-history HEAD ^U... -- PATHS`:
the non-merge commits reachable from HEAD and from none of the article's own commits U, touching
the paths it governs. Commit dates are random, so only ancestry can get it right.
"""

from __future__ import annotations

import os
import random
import subprocess

import pytest

from tests.canon.git.conftest import GitStore
from tests.conftest import MakeRepo, sized

ARTICLES = ("a", "a/b", "a/f1", "c")
FOLDERS = ("a", "a/b", "c", "d")  # d: governed by nothing
COMMITS_KEPT = 20


def _governing(path: str) -> str | None:
    """Nearest article at or above the file's address (its name less `.py`), as canon resolves it."""
    address = path[: -len(".py")] if path.endswith(".py") else path
    parts = address.split("/")
    for n in range(len(parts), 0, -1):
        candidate = "/".join(parts[:n])
        if candidate in ARTICLES:
            return candidate
    return None


def _commit(root: os.PathLike[str], message: str, stamp: int) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": f"{stamp} +0000", "GIT_COMMITTER_DATE": f"{stamp} +0000"}
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", message], cwd=root, env=env, check=True)


def _random_history(repo: GitStore, app: GitStore, rng: random.Random, steps: int) -> None:
    base = 1_767_225_600
    app.canon("init")
    for folder in FOLDERS:
        app.write(f"{folder}/seed.py", "0\n")
    app.write("a/f1.py", "0\n")
    for address in ARTICLES:
        app.article(address)
    _commit(repo.root, "start", base)
    branches = ["main"]
    current = "main"
    for step in range(steps):
        roll = rng.random()
        stamp = base + rng.randrange(1, 400) * 3600  # any order: dates say nothing about ancestry
        if roll < 0.12 and len(branches) < 4:
            current = f"b{len(branches)}"
            branches.append(current)
            repo.git("checkout", "-q", "-b", current)
        elif roll < 0.25:
            current = rng.choice(branches)
            repo.git("checkout", "-q", current)
        elif roll < 0.4 and len(branches) > 1:
            other = rng.choice([b for b in branches if b != current])
            env = {**os.environ, "GIT_AUTHOR_DATE": f"{stamp} +0000", "GIT_COMMITTER_DATE": f"{stamp} +0000"}
            subprocess.run(
                ["git", "merge", "-q", "--no-edit", "-X", "ours", other],
                cwd=repo.root,
                env=env,
                check=True,
                capture_output=True,
            )
        else:
            touched = []
            for _ in range(rng.randrange(1, 3)):
                if rng.random() < 0.3:
                    address = rng.choice(ARTICLES)
                    app.append(f".canon/articles/{address}.md", f"{current} {step}\n")
                    touched.append(address)
                else:
                    folder = rng.choice(FOLDERS)
                    name = rng.choice(["seed", "f1", f"n{step % 3}"]) if folder == "a" else f"{current}{step % 4}"
                    app.append(f"{folder}/{name}.py", f"{current} {step}\n")
            _commit(repo.root, f"step {step} on {current}", stamp)
    repo.git("checkout", "-q", "main")
    for other in branches[1:]:
        env = {**os.environ, "GIT_AUTHOR_DATE": f"{base} +0000", "GIT_COMMITTER_DATE": f"{base} +0000"}
        subprocess.run(
            ["git", "merge", "-q", "--no-edit", "-X", "ours", other],
            cwd=repo.root,
            env=env,
            check=True,
            capture_output=True,
        )


@pytest.mark.parametrize("sub", [False, True], ids=["top", "sub-folder"])
def test_stale_matches_git_rev_list_on_random_histories(make_repo: MakeRepo, sub: bool) -> None:
    for seed in range(sized(1, 6)):
        rng = random.Random(seed * 2 + sub)
        repo = GitStore(make_repo(name=f"r{seed}"))
        app = GitStore(repo.root / "app") if sub else repo
        app.root.mkdir(exist_ok=True)
        if sub:
            repo.write("outside.txt")  # outside the project: never judged
        _random_history(repo, app, rng, sized(14, 60))
        prefix = "app/" if sub else ""
        doc = app.canon("stale", "--json", "--limit", "100").json()
        rows = {row["address"]: row for row in doc["stale"]}
        listed = repo.git("log", "--format=", "--name-only", "--full-history", "HEAD", "--", prefix or ".").split()
        assets = {p[len(prefix) :] for p in listed if not p.startswith(f"{prefix}.canon/")}
        for address in ARTICLES:
            paths = sorted(prefix + p for p in assets if _governing(p) == address)
            # The article's own commits: every non-merge commit that changed its file, on any side
            # branch too (--full-history: no simplification drops a branch).
            updates = repo.git(
                "log",
                "--format=%H",
                "--no-merges",
                "--full-history",
                "HEAD",
                "--",
                f"{prefix}.canon/articles/{address}.md",
            ).split()
            truth = (
                repo.git(
                    "rev-list", "--no-merges", "--full-history", "HEAD", *(f"^{u}" for u in updates), "--", *paths
                ).split()
                if paths
                else []
            )
            row = rows.get(address)
            assert (row["commits_behind"] if row else 0) == len(truth), (seed, address, truth)
            if row and len(truth) <= COMMITS_KEPT:
                assert {c["sha"] for c in row["commits"]} == set(truth), (seed, address)
        scanned = repo.git(
            "rev-list", "--count", "--no-merges", "--full-history", "HEAD", "--", *([prefix] if sub else [])
        ).strip()
        assert doc["commits_scanned"] == int(scanned)
        assert set(rows) <= set(ARTICLES)
