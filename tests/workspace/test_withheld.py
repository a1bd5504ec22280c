"""The person's ignored files never go into an agent's worktree (issue 28.4), and a move says which
of a worktree's files it leaves out of the checkout (issue 33.6).

Reproductions: a session whose `.gitignore` drops the person's rules is moved in; `ws sync` of
another session and `ws move --back` then carried the person's `.env` and `*.log` into worktrees as
untracked files (an agent's `git add -A` commits them). An apply of such a `.gitignore` made
`ws new` and `ws sync` do the same. A worktree file under a folder the checkout ignores on its own
(`build/.gitignore` holding `*`) went into the checkout, where it was no part of its state, and
`--back` then took it from the worktree.

The randomized driver runs new / move / move --back / sync / apply / undo / redo with sessions that
rewrite their `.gitignore`; after every command no worktree holds a byte of the person's ignored
files, and the checkout still holds each of them unchanged.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

from tests.conftest import MakeRepo, git, sized
from tests.workspace.helpers import pylon

RULES = ".env\n*.log\nbuild/\n"
BROKEN = {"internal-error", "capture-failed", "git-failed"}


def ok(repo: Path | str, *args: str) -> dict[str, Any]:
    result = pylon("ws", *args, "--json", cwd=repo)
    assert result.code == 0, result
    return result.json()


def secrets(repo: Path, tag: str) -> dict[str, bytes]:
    """The person's ignored files, written into the checkout: path -> bytes."""
    found = {
        ".env": f"TOKEN={tag}-env\n".encode(),
        "debug.log": f"{tag} log line\n".encode(),
        "build/out.o": f"{tag} object\n".encode(),
        "src/trace.log": f"{tag} trace\n".encode(),
    }
    for rel, data in found.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    return found


def leaks(worktree: Path, kept: dict[str, bytes]) -> list[str]:
    """Files of the worktree holding the bytes of one of the person's ignored files."""
    values = set(kept.values())
    found = []
    for dirpath, dirnames, filenames in os.walk(worktree):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            full = Path(dirpath) / name
            if name != ".git" and not full.is_symlink() and full.read_bytes() in values:
                found.append(str(full.relative_to(worktree)))
    return found


def base(make_repo: MakeRepo) -> Path:
    return make_repo(files={".gitignore": RULES, "a.txt": "a\n", "src/m.py": "m = 1\n"})


def test_move_back_and_sync_leave_the_persons_ignored_files_out(make_repo: MakeRepo) -> None:
    repo = base(make_repo)
    kept = secrets(repo, "p")
    s1, s2 = (Path(str(ok(repo, "new", wid)["path"])) for wid in ("s1", "s2"))
    (s1 / ".gitignore").write_text("other\n")  # the agent's rules: none of the person's
    ok(repo, "move", "s1")
    synced = ok(repo, "sync", "s2")
    assert leaks(s2, kept) == [] and [f["path"] for f in synced["files"]] == [".gitignore"]
    back = ok(repo, "move", "s1", "--back")
    assert sorted(back["withheld"]) == sorted(kept)
    assert leaks(s1, kept) == [] and git(s1, "status", "--porcelain") == " M .gitignore\n"
    assert {rel: (repo / rel).read_bytes() for rel in kept} == kept
    ok(repo, "undo")  # the --back
    assert leaks(s1, kept) == []
    ok(repo, "undo")  # the sync
    ok(repo, "redo")
    assert leaks(s2, kept) == []


def test_an_applied_gitignore_does_not_let_new_or_sync_take_them(make_repo: MakeRepo) -> None:
    repo = base(make_repo)
    kept = secrets(repo, "q")
    s1, s2 = (Path(str(ok(repo, "new", wid)["path"])) for wid in ("s1", "s2"))
    (s1 / ".gitignore").write_text("")
    ok(repo, "apply", "s1")  # the checkout's rules on disk no longer ignore them
    assert ".env" in git(repo, "status", "--porcelain")
    s3 = Path(str(ok(repo, "new", "s3")["path"]))
    assert leaks(s3, kept) == []
    ok(repo, "sync", "s2")
    assert leaks(s2, kept) == []


def test_worktreeinclude_still_brings_what_it_names(make_repo: MakeRepo) -> None:
    repo = base(make_repo)
    kept = secrets(repo, "r")
    (repo / ".worktreeinclude").write_text(".env\n")
    s1 = Path(str(ok(repo, "new", "s1")["path"]))
    assert (s1 / ".env").read_bytes() == kept[".env"] and leaks(
        s1, {k: v for k, v in kept.items() if k != ".env"}
    ) == []


def test_a_move_says_which_files_it_leaves_out_and_back_keeps_them(make_repo: MakeRepo) -> None:
    repo = make_repo(files={".gitignore": ".env\n", "a.txt": "a\n"})
    (repo / "cache").mkdir()
    (repo / "cache" / ".gitignore").write_text("*\n")  # ignored by its own rule, as tools make them
    (repo / "cache" / "mine.bin").write_bytes(b"the person's cache\n")
    wt = Path(str(ok(repo, "new", "s1")["path"]))
    (wt / "cache").mkdir()
    (wt / "cache" / "agent.bin").write_bytes(b"the agent's file\n")
    (wt / "b.txt").write_text("b\n")
    moved = pylon("ws", "move", "s1", cwd=repo)
    assert moved.code == 0, moved
    assert "left out 1 untracked file(s)" in moved.err and "cache/agent.bin" in moved.err, moved.err
    assert not (repo / "cache" / "agent.bin").exists() and (repo / "b.txt").exists()
    doc = ok(repo, "move", "s1", "--back")
    assert (wt / "cache" / "agent.bin").read_bytes() == b"the agent's file\n"
    assert (repo / "cache" / "mine.bin").read_bytes() == b"the person's cache\n"
    assert doc["withheld"] == []
    again = ok(repo, "move", "s1")
    assert again["left_out"] == ["cache/agent.bin"]
    bring = str(again["bring"])
    os.system(bring)  # the command the note names, run as a person would
    assert (repo / "cache" / "agent.bin").read_bytes() == b"the agent's file\n"
    ok(repo, "undo")
    assert (repo / "cache" / "agent.bin").exists()  # brought by hand: ignored here, never taken


GITIGNORES = ["", "other\n", ".env\n", "*.log\nbuild/\n", None, RULES]  # mostly dropping the person's rules


def test_randomized_sequences_never_put_the_persons_ignored_files_in_a_worktree(make_repo: MakeRepo) -> None:
    steps = int(os.environ.get("PYLON_WITHHELD_STEPS", "30"))
    for seed in range(int(os.environ.get("PYLON_WITHHELD_SEEDS", str(sized(1, 2))))):
        repo = make_repo(files={".gitignore": RULES, "a.txt": "a\n", "src/m.py": "m = 1\n"}, name=f"w{seed}")
        kept = secrets(repo, f"s{seed}")
        rng = random.Random(seed)
        sessions: dict[str, Path] = {}
        log: list[str] = []
        for n in range(steps):
            action = rng.choice(
                [
                    "new",
                    "edit",
                    "edit",
                    "edit",
                    "move",
                    "move",
                    "back",
                    "back",
                    "sync",
                    "sync",
                    "sync",
                    "apply",
                    "apply",
                    "undo",
                    "redo",
                ]
            )
            wid = rng.choice(sorted(sessions)) if sessions else None
            args: list[str] = []
            if action == "new" or wid is None:
                wid = f"s{len(sessions) + 1}"
                args = ["new", wid]
            elif action == "edit":
                wt = sessions[wid]
                rules = rng.choice(GITIGNORES)
                if rules is None:
                    (wt / ".gitignore").unlink(missing_ok=True)
                else:
                    (wt / ".gitignore").write_text(rules)
                (wt / f"work{n}.txt").write_text(f"work {n}\n")
                log.append(f"edit {wid}: .gitignore={rules!r}")
                continue
            elif action in ("move", "back"):
                args = ["move", wid] + (["--back"] if action == "back" else [])
            elif action in ("sync", "apply"):
                args = [action, wid]
            else:
                args = [action]
            result = pylon("ws", *args, "--json", cwd=repo)
            log.append(f"{' '.join(args)} -> {result.code}")
            if result.code != 0:
                assert result.json()["error"]["code"] not in BROKEN, (log, result)
            elif args[0] == "new":
                sessions[wid] = Path(str(result.json()["path"]))
            for name, wt in sessions.items():
                if wt.exists():
                    assert leaks(wt, kept) == [], (seed, name, log)
            now = {rel: (repo / rel).read_bytes() for rel in kept if (repo / rel).is_file()}
            assert now == kept, (seed, " | ".join(log))
