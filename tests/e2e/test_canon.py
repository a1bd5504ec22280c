"""canon's hooks in the real clients: an article's capsule surfaces once after the tool calls that
touch its file, and Stop is blocked once when a governed file changed without its article
(issue 21; docs/explanation/agents.md)."""

from __future__ import annotations

from pathlib import Path

from tests.canon.helpers import article
from tests.conftest import MakeRepo, run_cmd
from tests.e2e.conftest import Agent
from tests.e2e.mockmodel import DONE, Bash, Step, Text

CAPSULE = "Entry point; parses the flags."


def store(make_repo: MakeRepo, agent: Agent) -> Path:
    repo: Path = make_repo(
        {
            ".canon/articles/src/app.md": article(CAPSULE, updated="2026-01-02"),
            ".canon/journal/.keep": "",
            "src/app.py": "print('app')\n",
            ".gitignore": ".claude/\n.codex/\n",
        }
    )
    done = run_cmd("canon", "hook", "install", agent.agent, cwd=repo)
    assert done.code == 0, done
    return repo


def test_a_capsule_surfaces_once_and_stop_is_blocked_once(make_repo: MakeRepo, agent: Agent) -> None:
    repo = store(make_repo, agent)
    script: list[Step] = [Bash("echo '# more' >> src/app.py"), Bash("cat src/app.py"), Text("finished")]
    result = agent.run(repo, script)
    assert result.code == 0, result
    assert agent.model is not None
    turns = agent.model.turns()
    # three scripted turns, then one more: the Stop hook sent the model back once, and only once
    assert [t.turn for t in turns] == [0, 1, 2, 3], [t.turn for t in turns]
    assert agent.count(f"src/app (updated 2026-01-02): {CAPSULE}") == 1, agent.seen()[-4000:]
    assert agent.count("src/app: src/app.py") == 1, agent.seen()[-4000:]
    if agent.name == "claude":
        assert result.json()["result"] == DONE
    else:
        assert DONE in result.out
