"""Exact totals when a list is cut: `changes`, `run` and `watch` agree with git's own count.

A cut list used to stop `git diff-tree` once it had limit+1 names and report how many it had seen
by then (5,000 new files gave "showed 200 of 633"), a number that changed from run to run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import script, sized
from tests.workspace.helpers import git, pylon

# Well past the 200-path cut and the index's 500-path bulk write in both tiers; 5,000 (the size the
# run-to-run miscount was found at) in the full tier. Always 100 folders: git's untracked cache then
# holds bitmaps with whole 64-bit runs (pylon/workspace/indexfile.py reads them).
N_FILES = sized(1000, 5000)
PER_DIR = N_FILES // 100
_MAKE = (
    "import os\n"
    "for i in range({n}):\n"
    "    d = 'gen/d%03d' % (i // {per})\n"
    "    os.makedirs(d, exist_ok=True)\n"
    "    open('%s/f%05d.txt' % (d, i), 'w').write('line %d\\n' % i)\n"
)


def _make_files(repo: Path, n: int = N_FILES) -> None:
    subprocess.run([sys.executable, "-c", _MAKE.format(n=n, per=PER_DIR)], cwd=repo, check=True)


def _git_count(repo: Path) -> int:
    """git's own answer: every untracked or changed path, one by one (`-uall`)."""
    out = git(repo, "status", "--porcelain", "-z", "-uall")
    return len([r for r in out.split("\0") if r])


def test_changes_states_the_true_total_every_time(repo: Path) -> None:
    _make_files(repo)
    expected = _git_count(repo)
    assert expected == N_FILES
    for _ in range(5):
        doc = pylon("ws", "changes", "--json", cwd=repo).json()
        assert (doc["total"], doc["left_out"], len(doc["files"])) == (expected, expected - 200, 200)
        assert doc["truncated"] is True
        assert all(isinstance(f["additions"], int) and f["additions"] == 1 for f in doc["files"])
    text = pylon("ws", "changes", "--since", "HEAD", "--limit", "7", cwd=repo)
    assert len(text.out.splitlines()) == 7
    assert f"showed 7 of {expected} changed paths" in text.err
    assert f"--since HEAD --limit {expected}" in text.err  # the hint keeps --since


def test_run_states_the_true_total(repo: Path) -> None:
    pylon("ws", "baseline", cwd=repo)  # the state before is known, so `run` reports only the command
    r = pylon("ws", "run", "--json", "--", sys.executable, "-c", _MAKE.format(n=N_FILES, per=PER_DIR), cwd=repo)
    assert r.code == 0, r
    doc = r.json()
    assert (doc["total"], doc["left_out"], len(doc["files"])) == (N_FILES, N_FILES - 200, 200)
    text = pylon("ws", "run", "--limit", "3", "--", "sh", "-c", "rm -r gen/d000", cwd=repo)
    assert f"changed {PER_DIR} paths" in text.err
    assert f"{PER_DIR - 3} more paths not listed" in text.err
    # the hint names a command that lists exactly those paths
    hint = [ln for ln in text.err.splitlines() if "more paths not listed" in ln][0]
    command = hint.split("`")[1]
    assert command.startswith("pylon ws changes --since ") and command.endswith(f"--limit {PER_DIR}")
    again = pylon(*command.split()[1:], "--json", cwd=repo)
    assert again.code == 0, again
    listed = again.json()
    assert listed["total"] == PER_DIR and {f["status"] for f in listed["files"]} == {"deleted"}


def test_watch_states_the_true_total(repo: Path) -> None:
    staging = repo.parent / "staging"
    staging.mkdir()
    _make_files(staging)  # made outside, then moved in with one rename: one batch sees them all
    proc = subprocess.Popen(
        [script("pylon"), "ws", "watch", "--json", "--since", "HEAD", "--debounce", "0.5", "--timeout", "12"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    assert proc.stderr is not None
    assert "watching" in proc.stderr.readline().decode()
    os.rename(staging / "gen", repo / "gen")
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:  # until the batch of the rename (or the watcher's own --timeout ends it)
        lines.append(line)
        event = json.loads(line)
        if event["event"] == "batch" and not event["initial"] and event["total"]:
            time.sleep(1.0)  # a second batch, if the watcher split this one, would come within the debounce
            proc.send_signal(signal.SIGINT)
            break
    out, _ = proc.communicate(timeout=90)
    lines.append(out)
    text = b"".join(lines).decode()
    batches = [b for b in (json.loads(x) for x in text.splitlines() if x.strip()) if b["event"] == "batch"]
    seen = [b for b in batches if not b["initial"] and b["total"]]
    assert len(seen) == 1, batches
    assert (seen[0]["total"], seen[0]["total_since"], len(seen[0]["files"])) == (N_FILES, N_FILES, 200)
    assert seen[0]["truncated"] is True


def test_asking_again_about_a_big_change_takes_the_cut_path_and_stays_exact(repo: Path) -> None:
    _make_files(repo)
    assert pylon("ws", "changes", "--json", cwd=repo).json()["total"] == N_FILES
    (repo / "one-more.txt").write_text("x\n")  # a new tree: nothing memoised, the same base
    doc = pylon("ws", "changes", "--json", cwd=repo).json()
    assert (doc["total"], len(doc["files"])) == (N_FILES + 1, 200)
    assert all(f["additions"] == 1 and f["status"] == "added" for f in doc["files"])
    subprocess.run(["rm", "-r", *[f"gen/d{i:03d}" for i in range(2, 100)]], cwd=repo, check=True)
    doc = pylon("ws", "changes", "--json", cwd=repo).json()  # expected a cut, but it fits now
    assert (doc["total"], len(doc["files"]), doc["truncated"]) == (2 * PER_DIR + 1, 2 * PER_DIR + 1, False)
    assert _git_count(repo) == 2 * PER_DIR + 1


def test_a_file_replaced_by_a_folder_at_the_cut(repo: Path) -> None:
    git(repo, "rm", "-q", "README.md")
    git(repo, "commit", "-q", "-m", "no readme")
    (repo / "README.md").mkdir()
    (repo / "README.md" / "x.txt").write_text("x\n")
    (repo / "src" / "app.py").unlink()
    (repo / "src" / "app.py").mkdir()
    (repo / "src" / "app.py" / "inner.txt").write_text("i\n")
    for _ in range(2):  # the second asks from the same base again: the cut path
        doc = pylon("ws", "changes", "--since", "HEAD", "--limit", "2", "--json", cwd=repo).json()
        assert doc.get("total") == 3, doc
        assert [(f["path"], f["status"]) for f in doc["files"]] == [
            ("README.md/x.txt", "added"),
            ("src/app.py", "deleted"),
        ]
        (repo / "README.md" / "x.txt").write_text("x2\n")  # a new tree for the next round
