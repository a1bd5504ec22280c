"""The real Claude Code and Codex clients from npm, installed once into a cache folder, and run
non-interactively against the mock model server (tests/e2e/mockmodel.py). Shared by the e2e tests
and bench/agents_e2e.py; docs/testing.md ("The e2e tier") says why each setting is there.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The one place the client versions are pinned (docs/testing.md names them too).
PINNED = {"@anthropic-ai/claude-code": "2.1.332", "@openai/codex": "0.171.0"}
BINARY = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex"}
ROOT = Path(__file__).resolve().parents[2]
# Read at import: the per-test fixture drops every PYLON_* variable.
NPM_DIR = Path(os.environ.get("PYLON_E2E_NPM") or ROOT / "tests" / "e2e" / ".npm")
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# Variables of the caller's environment a client run never inherits: real credentials and endpoints.
_DROP = (
    "ANTHROPIC_",
    "CLAUDE_",
    "CODEX_",
    "OPENAI_",
    "AWS_",
    "GOOGLE_",
    "VERTEX_",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
)


class Unavailable(Exception):
    """node/npm missing or the install failed: the tier is skipped (outside CI) with this reason."""


def _version(binary: Path) -> str | None:
    try:
        out = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": os.environ.get("PATH", ""), "HOME": str(NPM_DIR)},
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = out.split()  # "2.1.332 (Claude Code)", "codex-cli 0.171.0"
    if not words:
        return None
    return words[-1] if binary.name == "codex" else words[0]


def install(folder: Path = NPM_DIR) -> dict[str, Path]:
    """{"claude": path, "codex": path} of the pinned clients, installed into `folder` on first use
    (under a lock, so parallel workers install once). Raises Unavailable with the reason."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise Unavailable(f"{tool} is not on PATH (the e2e tier runs the real clients from npm)")
    folder.mkdir(parents=True, exist_ok=True)
    bins = {name: folder / "node_modules" / ".bin" / name for name in BINARY}

    def current() -> bool:
        return all(bins[n].exists() and _version(bins[n]) == PINNED[BINARY[n]] for n in BINARY)

    with open(folder / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if current():
            return bins
        specs = [f"{pkg}@{version}" for pkg, version in PINNED.items()]
        try:
            proc = subprocess.run(
                [
                    "npm",
                    "install",
                    "--prefix",
                    str(folder),
                    "--no-audit",
                    "--no-fund",
                    "--no-save",
                    "--loglevel=error",
                    *specs,
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
        except subprocess.TimeoutExpired:
            raise Unavailable(f"npm install {' '.join(specs)} took over 10 minutes") from None
        if proc.returncode != 0 or not current():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            raise Unavailable(f"npm install {' '.join(specs)} into {folder} failed: {' | '.join(tail)}")
    return bins


@dataclass
class Run:
    client: str
    code: int
    out: str
    err: str
    seconds: float

    def json(self) -> Any:
        return json.loads(self.out)

    def __repr__(self) -> str:
        return (
            f"Run({self.client}, code={self.code}, {self.seconds:.1f}s)\n--- stdout\n{self.out[-4000:]}\n"
            f"--- stderr\n{self.err[-4000:]}"
        )


WITHOUT_PYLON = "PYLON_E2E_PATH_ONLY"  # a path_dirs entry: use the given folders alone as PATH


def base_env(home: Path, path_dirs: list[str]) -> dict[str, str]:
    """The caller's environment (already isolated by tests/conftest.py) without credentials, with a
    fresh HOME and XDG folders under `home` and the given folders first on PATH (only them, when
    `path_dirs` holds WITHOUT_PYLON: a client that must not find `pylon`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROP)}
    home.mkdir(parents=True, exist_ok=True)
    alone = WITHOUT_PYLON in path_dirs
    dirs = [d for d in path_dirs if d != WITHOUT_PYLON] + ([] if alone else [env.get("PATH", "")])
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        PATH=os.pathsep.join(dirs),
        NO_COLOR="1",
        TERM="dumb",
    )
    return env


def claude_env(home: Path, url: str, path_dirs: list[str]) -> dict[str, str]:
    """Claude Code's environment: its model at `url`, its configuration under `home`."""
    env = base_env(home, path_dirs)
    env.update(
        ANTHROPIC_BASE_URL=url,
        ANTHROPIC_API_KEY="sk-ant-mock",
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        # no telemetry, error reports, auto-updates, release notes or other calls beside the model's
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
        DISABLE_BUG_COMMAND="1",
        CLAUDE_CODE_DISABLE_TERMINAL_TITLE="1",
        CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY="1",
        CLAUDE_CODE_ENABLE_TELEMETRY="0",
        # MCP tools offered up front, not deferred behind the ToolSearch tool
        ENABLE_TOOL_SEARCH="false",
    )
    return env


def run_claude(
    binary: Path,
    repo: Path,
    home: Path,
    url: str,
    prompt: str,
    *,
    path_dirs: list[str],
    allowed: tuple[str, ...] = ("Bash",),
    timeout: float = 120,
    extra: tuple[str, ...] = (),
) -> Run:
    """`claude -p PROMPT --output-format json` in `repo`, its model at `url`; `allowed` tools run
    without a permission prompt (the hooks still answer first); `extra` arguments follow
    (`--worktree NAME`)."""
    argv = [
        str(binary),
        "-p",
        prompt,
        "--output-format",
        "json",
        "--model",
        "claude-sonnet-4-5",
        "--allowedTools",
        ",".join(allowed),
        *extra,
    ]
    return _run("claude", argv, repo, claude_env(home, url, path_dirs), timeout)


def codex_config(home: Path, repo: Path, url: str, extra: str = "") -> Path:
    """$CODEX_HOME/config.toml: the mock as a custom Responses provider, the project trusted."""
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    trusted = json.dumps(os.path.realpath(repo))  # a TOML basic string is a JSON string here
    (codex_home / "config.toml").write_text(
        'model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\n'
        'sandbox_mode = "danger-full-access"\ncheck_for_update_on_startup = false\n'
        "[analytics]\nenabled = false\n[feedback]\nenabled = false\n"
        f'[model_providers.mock]\nname = "mock"\nbase_url = "{url}/v1"\nwire_api = "responses"\n'
        "request_max_retries = 0\nstream_max_retries = 0\n"
        f'[projects.{trusted}]\ntrust_level = "trusted"\n' + extra,
        encoding="utf-8",
    )
    return codex_home


def run_codex(
    binary: Path,
    repo: Path,
    home: Path,
    url: str,
    prompt: str,
    *,
    path_dirs: list[str],
    config_extra: str = "",
    trust_hooks: bool = True,
    timeout: float = 120,
    extra: tuple[str, ...] = (),
) -> Run:
    """`codex exec PROMPT` in `repo`, its model at `url`. Hooks run without a persisted trust record
    (`--dangerously-bypass-hook-trust`) unless `trust_hooks` is false: docs/testing.md says how a
    person approves them instead."""
    env = base_env(home, path_dirs)
    env["CODEX_HOME"] = str(codex_config(home, repo, url, config_extra))
    trust = ["--dangerously-bypass-hook-trust"] if trust_hooks else []
    argv = [
        str(binary),
        "exec",
        *trust,
        "--dangerously-bypass-approvals-and-sandbox",
        "--skip-git-repo-check",
        *extra,
        prompt,
    ]
    return _run("codex", argv, repo, env, timeout)


def _run(client: str, argv: list[str], repo: Path, env: dict[str, str], timeout: float) -> Run:
    start = time.monotonic()
    proc = subprocess.run(
        argv, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
    )
    return Run(client, proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)
