"""Random sequences of guard/canon installs and uninstalls over random hooks.json files: the
user's handlers never change place in Codex's file (its trust key is the event, group and handler
index), nothing of theirs is lost in either agent's file, a repeated step changes no byte, and the
file holds exactly one pylon command per event of the parts installed."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from pylon.agents.settings import apply
from pylon.hooks.install import GUARD_MATCHERS, plan
from tests.conftest import sized

EVENTS = ("PreToolUse", "SessionStart", "PostToolUse", "PostToolBatch", "Stop", "UserPromptSubmit")
CANON_EVENTS = {
    "claude-code": ("SessionStart", "PostToolBatch", "Stop"),
    "codex": ("SessionStart", "PostToolUse", "Stop"),
}
OLD = {"guard": "pylon guard hook {agent}", "canon": "canon hook {agent}"}


def random_file(rng: random.Random, agent: str) -> dict:
    hooks: dict[str, list[dict]] = {}
    n = 0
    for event in rng.sample(EVENTS, rng.randint(1, len(EVENTS))):
        groups = []
        for _ in range(rng.randint(1, 3)):
            handlers = []
            for _ in range(rng.randint(1, 2)):
                n += 1
                handlers.append({"type": "command", "command": f"user-{n}"})
            group: dict[str, object] = {"hooks": handlers}
            if rng.random() < 0.5:
                group["matcher"] = "Bash"
            groups.append(group)
        hooks[event] = groups
    # an older pylon's separate commands, each in a group of its own, somewhere among the user's
    for part, events in (("guard", ("PreToolUse",)), ("canon", CANON_EVENTS[agent])):
        if rng.random() < 0.5:
            for event in events:
                groups = hooks.setdefault(event, [])
                groups.insert(
                    rng.randint(0, len(groups)),
                    {"hooks": [{"type": "command", "command": OLD[part].format(agent=agent), "timeout": 10}]},
                )
    return {"hooks": hooks}


def places(data: dict) -> dict[str, tuple[str, int, int]]:
    return {
        h["command"]: (event, g, i)
        for event, groups in data.get("hooks", {}).items()
        for g, group in enumerate(groups)
        for i, h in enumerate(group["hooks"])
        if h["command"].startswith("user-")
    }


def pylon_events(data: dict, agent: str) -> list[str]:
    found = [
        event
        for event, groups in data.get("hooks", {}).items()
        for group in groups
        for h in group["hooks"]
        if not h["command"].startswith("user-")
    ]
    assert all(
        h["command"] == f"pylon hook {agent}"
        for groups in data.get("hooks", {}).values()
        for group in groups
        for h in group["hooks"]
        if not h["command"].startswith("user-")
    )
    return sorted(found)


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_random_install_sequences_keep_the_users_hooks(tmp_path: Path, agent: str) -> None:
    for seed in range(sized(6, 200)):
        rng = random.Random(seed)
        path = tmp_path / f"{seed}.json"
        start = random_file(rng, agent)
        path.write_text(json.dumps(start, indent=2) + "\n")
        theirs = places(start)
        installed: set[str] = set()
        for _ in range(6):
            part, install = rng.choice(("guard", "canon")), rng.random() < 0.6
            apply(plan(agent, str(path), part, install=install))
            before = path.read_bytes()
            apply(plan(agent, str(path), part, install=install))
            assert path.read_bytes() == before, (seed, part, install)  # a repeated step changes nothing
            data = json.loads(before)
            if agent == "codex":
                assert places(data) == theirs, (seed, part, install)
            else:
                assert set(places(data)) == set(theirs), (seed, part, install)
            if install:
                installed.add(part)
            else:
                installed.discard(part)
            events = pylon_events(data, agent)
            # parts the older install held are migrated on the first step, whichever part it names
            if "guard" in installed:
                assert "PreToolUse" in events
                group = next(
                    g
                    for g in data["hooks"]["PreToolUse"]
                    if any(h["command"] == f"pylon hook {agent}" for h in g["hooks"])
                )
                assert group.get("matcher") == GUARD_MATCHERS[agent]
            assert len(events) == len(set(events)), (seed, events)  # one pylon command per event
