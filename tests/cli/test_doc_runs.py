"""The shell examples of README.md's tour and the guide's loop (pylon/cli/guide/overview.md) run
verbatim, in order, in one scratch repository, through bash with the installed `pylon`/`canon` on
PATH: each command line exits 0 with no traceback and no `internal-error`.

The one liberty taken: a revision tag in an example (`src/app.py#b6285c57e879`, `#TAG`) is, as the
text beside it says, the tag the preceding `pylon read` printed, so the runner puts that one in.
Blocks that install things (`scripts/demo`, `scripts/test`; the install lines are ```console blocks,
which only tests/cli/test_doc_examples.py reads) are not run here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import git, write_files

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "README.md", ROOT / "pylon" / "cli" / "guide" / "overview.md"]
TAG = re.compile(r"(?<=\.py)#(?:[0-9a-f]{12}|TAG)\b")
PRINTED_TAG = re.compile(r"#([0-9a-f]{12})\]")

# src/app.py as the examples expect it: `def main` and `def load`, lines 42-43 inside a function.
APP = (
    "import os\nimport json\n\n\ndef main():\n    return load()\n\n\ndef load():\n"
    + "".join(f"    value_{n} = {n}\n" for n in range(10, 80))
    + "    return value_10\n"
)


def commands(text: str) -> list[str]:
    """The command lines of the ```sh blocks of a markdown text, a heredoc joined to its line."""
    found: list[str] = []
    for block in re.findall(r"^```(?:sh|bash)\n(.*?)^```", text, re.M | re.S):
        if "scripts/" in block:
            continue
        lines = block.splitlines()
        while lines:
            line = lines.pop(0)
            marker = re.search(r"<<-?\s*'?(\w+)'?", line)
            if marker:
                end = lines.index(marker.group(1))
                line = "\n".join([line, *lines[: end + 1]])
                lines = lines[end + 1 :]
            if line.strip():
                found.append(line)
    return found


def test_readme_and_guide_examples_run_verbatim(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_files(
        repo,
        {
            "README.md": "# demo\n\nA project to try pylon on.\n",
            "src/app.py": APP,
            "src/core/config.py": "TIMEOUT = 30\n",
            "Makefile": "generate:\n\techo generated > generated.txt\n",
        },
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    lines = [line for source in SOURCES for line in commands(source.read_text(encoding="utf-8"))]
    assert len(lines) >= 12, lines
    tag = ""
    for line in lines:
        line = TAG.sub(f"#{tag}", line) if tag else line
        proc = subprocess.run(["bash", "-c", line], cwd=repo, env=env, capture_output=True, text=True, timeout=60)
        shown = f"`{line}` exits {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        assert proc.returncode == 0, shown
        assert "Traceback" not in proc.stdout + proc.stderr and "internal-error" not in proc.stdout + proc.stderr, shown
        printed = PRINTED_TAG.findall(proc.stdout)
        tag = printed[-1] if printed else tag


def session_steps(text: str) -> list[tuple[str, str]]:
    """(command, the output the docs show for it) of every `$ ` line of the ```console blocks in
    `text`, a heredoc's body joined to its command."""
    steps: list[tuple[str, str]] = []
    for block in re.findall(r"^```console\n(.*?)^```", text, re.M | re.S):
        lines = block.splitlines()
        while lines:
            line = lines.pop(0)
            assert line.startswith("$ "), f"output before any command: {line!r}"
            command = line[2:]
            marker = re.search(r"<<-?\s*'?(\w+)'?", command)
            if marker:
                end = lines.index(marker.group(1))
                command = "\n".join([command, *lines[: end + 1]])
                lines = lines[end + 1 :]
            output = []
            while lines and not lines[0].startswith("$ "):
                output.append(lines.pop(0))
            steps.append((command, "\n".join(output)))
    return steps


def test_the_edits_session_runs_as_shown(tmp_path: Path) -> None:
    """docs/how-to/numbered-edits.md's "A session, step by step" runs verbatim, in order, and prints exactly what
    the page shows (tags are content hashes, so they come out the same). The file is the one the
    session's first `pylon read` prints."""
    doc = (ROOT / "docs" / "how-to" / "numbered-edits.md").read_text(encoding="utf-8")
    section = doc.split("## A session, step by step\n", 1)[1].split("\n## ", 1)[0]
    steps = session_steps(section)
    assert len(steps) >= 8, steps
    first_read = next(out for command, out in steps if command.startswith("pylon read"))
    content = "".join(line.split(":", 1)[1] + "\n" for line in first_read.splitlines()[1:])
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_files(repo, {"src/app.py": content})
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    status = 0
    for command, shown in steps:
        if command.startswith("export "):
            name, _, value = command.split("#")[0].split()[1].partition("=")
            env[name] = value
            continue
        if command == "echo $?":
            assert shown == str(status), f"the docs show `echo $?` as {shown}, the last command exited {status}"
            continue
        proc = subprocess.run(
            ["bash", "-c", command],
            cwd=repo,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=60,
        )
        status = proc.returncode
        assert proc.stdout.rstrip("\n") == shown, f"`{command}` printed:\n{proc.stdout}\nthe docs show:\n{shown}"
