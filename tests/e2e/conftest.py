"""Fixtures of the e2e tier: the real clients (installed once per session) and the mock model.

Every test here is marked `e2e` (tests/conftest.py registers it; the default tier leaves it out,
`.ci/run` runs it). Without node/npm, or when the install fails, the tests skip with the reason;
under CI (`CI=true`) that is a failure instead, so the tier cannot vanish unnoticed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import BIN
from tests.e2e.clients import CI, Run, Unavailable, install, run_claude, run_codex
from tests.e2e.mockmodel import MockModel, Step, Usage

CLIENTS = ("claude", "codex")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def client_bins() -> dict[str, Path]:
    try:
        return install()
    except Unavailable as exc:
        if CI:
            pytest.fail(f"e2e tier: {exc} (CI=true: the tier must run)", pytrace=False)
        pytest.skip(f"e2e tier: {exc}")


@dataclass
class Agent:
    """One client, driven by a script of model turns in a repository."""

    name: str
    binary: Path
    home: Path
    model: MockModel | None = None
    config_extra: str = ""
    trust_hooks: bool = True  # Codex: run hooks without a persisted trust record
    allowed: tuple[str, ...] = ("Bash",)
    without_pylon: bool = False  # PATH without pylon's console scripts (the plugins' fail-closed path)

    @property
    def agent(self) -> str:  # pylon's word for the client
        return "claude-code" if self.name == "claude" else "codex"

    def run(
        self,
        repo: Path,
        script: list[Step],
        prompt: str = "Do the task.",
        timeout: float = 120,
        usage: Callable[[int], Usage] | None = None,
        extra: tuple[str, ...] = (),
        routes: dict[str, list[Step]] | None = None,
    ) -> Run:
        """One run of the client in `repo` against the script (`usage(turn)`: the tokens the mock reports
        for each turn; `routes`: the scripts of subagents' conversations, by a text of their prompt;
        `extra`: more arguments, e.g. `--worktree NAME`)."""
        if self.model is not None:
            self.model.close()
        self.model = MockModel(list(script), usage=usage, routes=dict(routes or {}))
        path_dirs = self.path_dirs()
        if self.name == "claude":
            return run_claude(
                self.binary,
                repo,
                self.home,
                self.model.url,
                prompt,
                path_dirs=path_dirs,
                allowed=self.allowed,
                timeout=timeout,
                extra=extra,
            )
        return run_codex(
            self.binary,
            repo,
            self.home,
            self.model.url,
            prompt,
            path_dirs=path_dirs,
            config_extra=self.config_extra,
            trust_hooks=self.trust_hooks,
            timeout=timeout,
            extra=extra,
        )

    def path_dirs(self) -> list[str]:
        """pylon's console scripts, then the client's folder, first on the client's PATH (without_pylon:
        the client's folder, node's and the system's, nothing else)."""
        if self.without_pylon:
            import shutil

            from tests.e2e.clients import WITHOUT_PYLON

            node = shutil.which("node")
            return [
                str(self.binary.parent),
                *([str(Path(node).parent)] if node else []),
                "/usr/bin",
                "/bin",
                WITHOUT_PYLON,
            ]
        return [str(BIN), str(self.binary.parent)]

    def seen(self) -> str:
        """The conversation the model received in its last scripted request (messages or input items,
        not the tools or system prompt), as one JSON text."""
        assert self.model is not None
        turns = self.model.turns()
        assert turns, f"{self.name} sent no scripted request: {[r.path for r in self.model.requests]}"
        body = turns[-1].body
        return json.dumps(body.get("messages", body.get("input")), ensure_ascii=False)

    def count(self, text: str) -> int:
        """In how many messages (Claude) or input items (Codex) of its last request the model
        received `text`: a client may repeat one hook answer in several parts of one message."""
        body = self.model.turns()[-1].body if self.model is not None and self.model.turns() else {}
        escaped = json.dumps(text, ensure_ascii=False)[1:-1]
        return sum(escaped in json.dumps(m, ensure_ascii=False) for m in body.get("messages", body.get("input", [])))

    def settings_file(self, repo: Path) -> Path:
        return repo / (".claude/settings.json" if self.name == "claude" else ".codex/hooks.json")


@pytest.fixture(params=CLIENTS)
def agent(request: pytest.FixtureRequest, client_bins: dict[str, Path], tmp_path: Path) -> Iterator[Agent]:
    made = Agent(request.param, client_bins[request.param], tmp_path / "client-home")
    yield made
    if made.model is not None:
        made.model.close()


RESTORE = re.compile(r"pylon ws restore ((?:guard|op)-\d+)((?: [^\s`'\"\\]+)*)")


def restore_command(text: str, *, paths: bool = False) -> list[str]:
    """The first `pylon ws restore guard-N|op-N ...` a note names (with `paths`: the first naming
    paths), as argv."""
    found = [m for m in RESTORE.finditer(text) if m.group(2).split() or not paths]
    assert found, f"no `pylon ws restore` in what the model received: {text[-3000:]}"
    return ["pylon", "ws", "restore", found[0].group(1), *found[0].group(2).split()]


def tree(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every entry under `root` but .git: (mode, bytes) for files, (mode, target) for links,
    (mode, b"") for folders, so two trees compare byte for byte, modes and empty folders included."""
    out: dict[str, tuple[int, bytes]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in dirs + files:
            path = Path(folder) / name
            rel = str(path.relative_to(root))
            st = path.lstat()
            if path.is_symlink():
                out[rel] = (st.st_mode, os.readlink(path).encode())
            elif path.is_dir():
                out[rel] = (st.st_mode, b"")
            else:
                out[rel] = (st.st_mode, path.read_bytes())
    return out
