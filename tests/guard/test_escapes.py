"""Issue 18's escapes run for real: the entries of corpus/escapes.txt marked "(run)" go through the
hook path as a client runs them (PreToolUse, bash in a fresh corpus checkout, PostToolUse), and
`pylon ws undo` must give back every byte, bit and folder, the index, HEAD, refs and the stash.
Before issue 18 each of them was judged `safe`: no snapshot, and the data was gone; since issue 29
the state before every command is kept whatever the classifier says, and the note names the undo."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import fast_few, git, run_cmd
from tests.guard.conftest import ESCAPES, build_checkout, entries
from tests.keep.hookpath import run_through_hooks, whole_state

RUN = [(v, s, c) for v, s, c in entries(ESCAPES) if s.endswith("(run)")]
# The hook path, bash and the undo are one code path for every entry (tests/guard/test_corpus.py
# classifies them all): the default tier runs one of each kind of change (files, index, HEAD, refs).
FAST = {
    "redirect before args: rm (run)",
    "redirect before args: git reset (run)",
    "redirect before args: git checkout (run)",
    "heredoc overwriting a tracked file (run)",
    "heredoc then a removal (run)",
    "coproc (run)",
    "ANSI-C quoted command word, hex (run)",
    "env -i (run)",
    "xargs -0 (run)",
    "awk system() (run)",
    "GNU sed w file (run)",
    "alias defined in the script (run)",
    "git -c alias (run)",
    "tar --remove-files first (run)",
    "checkout -f -b (run)",
}


def test_the_run_set_covers_every_class() -> None:
    assert len(RUN) >= 30
    assert all(v == "reversible" for v, _, _ in RUN)


@pytest.mark.parametrize(
    ("expected", "source", "command"), fast_few(RUN, {r for r in RUN if r[1] in FAST}), ids=[s for _, s, _ in RUN]
)
def test_escape_is_kept_and_undone_after_bash_runs_it(expected: str, source: str, command: str, tmp_path: Path) -> None:
    root, env = build_checkout(tmp_path)
    (root / "src" / "app.py").write_text("def main():\n    return 2  # uncommitted work\n")
    (root / "README.md").write_text("# demo, edited\n")
    git(root, "add", "README.md")
    before = whole_state(root)
    reply, done = run_through_hooks(root, command, env={**env, "GIT_CONFIG_NOSYSTEM": "1"})
    context = reply.get("hookSpecificOutput", {}).get("additionalContext", "")
    assert "`pylon ws undo` right after brings it all back" in context, (source, reply)
    assert done is not None and whole_state(root) != before, (source, done.stderr if done else None)
    undone = run_cmd("pylon", "ws", "undo", cwd=root)
    assert undone.code == 0, (source, undone)
    assert whole_state(root) == before, source
