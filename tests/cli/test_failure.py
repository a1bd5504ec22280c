"""How failures are rendered (pylon/cli/failure.py): envelope, crash logs, broken pipes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pylon.cli.failure import handle_exception, wants_json
from pylon.errors import PylonError
from tests.conftest import MakeRepo, Run, script


def test_unexpected_error_writes_traceback_log(
    capsys: pytest.CaptureFixture[str], isolated_env: dict[str, str]
) -> None:
    try:
        1 / 0  # noqa: B018 - a real exception with a real traceback
    except ZeroDivisionError as exc:
        code = handle_exception(exc, [])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.err.startswith("error[internal-error]: pylon hit an unexpected ZeroDivisionError")
    assert "Traceback" not in captured.err
    log = Path(captured.err.split("traceback was written to ")[1].split(".log")[0] + ".log")
    assert log.is_file()
    assert log.is_relative_to(Path(isolated_env["XDG_STATE_HOME"]) / "pylon" / "logs")
    assert "ZeroDivisionError" in log.read_text()


def test_unexpected_error_in_json_mode_names_the_log(capsys: pytest.CaptureFixture[str]) -> None:
    code = handle_exception(KeyError("x"), ["--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["ok"] is False
    assert doc["error"]["code"] == "internal-error"
    assert Path(doc["error"]["log"]).is_file()


def test_expected_error_renders_code_message_hint(capsys: pytest.CaptureFixture[str]) -> None:
    exc = PylonError("no-article", "Nothing governs x.", "canon write x --capsule ...", exit_code=1)
    code = handle_exception(exc, [])
    assert code == 1
    assert capsys.readouterr().err == "error[no-article]: Nothing governs x.\nhint: canon write x --capsule ...\n"


def test_details_are_merged_into_the_envelope(capsys: pytest.CaptureFixture[str]) -> None:
    exc = PylonError("unseen-lines", "m", "h", exit_code=2, details={"unseen": [1, 2]})
    assert handle_exception(exc, [], json_mode=True) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc == {"ok": False, "error": {"code": "unseen-lines", "message": "m", "hint": "h", "unseen": [1, 2]}}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--json"], True),
        (["--format", "json"], True),
        (["--format=json"], True),
        (["--", "--json"], False),
        (["--format", "text"], False),
    ],
)
def test_json_mode_detection_for_lines_that_did_not_parse(argv: list[str], expected: bool) -> None:
    assert wants_json(argv) is expected


def test_a_command_after_ws_run_keeps_its_own_json_flag(run: Run, make_repo: MakeRepo) -> None:
    # `--json` after the command's first word belongs to that command, not to pylon.
    repo = make_repo({"a.txt": "a\n"})
    res = run("pylon", "ws", "run", "sh", "-c", "exit 3", "--json", cwd=repo)
    assert res.code == 3 and not res.out.startswith("{"), res


def test_broken_pipe_is_quiet(project: Path) -> None:
    # The reader goes away mid-output (`| head -c1`): stop quietly, no traceback on stderr.
    articles = project / ".canon" / "articles"
    articles.mkdir(parents=True)
    for i in range(6000):
        (articles / f"note-{i:05}.md").write_text(f"---\ncapsule: Article number {i} of the flood.\n---\n")
    proc = subprocess.run(
        f"'{script('canon')}' map | head -c 1 >/dev/null; echo \"${{PIPESTATUS[0]}}\"",
        shell=True,
        capture_output=True,
        text=True,
        executable="/bin/bash",
        cwd=project,
    )
    assert proc.stderr == ""
    # 141 when the write fails with EPIPE; 0 when the kernel took a partial write and the reader left
    # (PYTHONUNBUFFERED=1 writes straight through). Never a traceback.
    assert proc.stdout.strip() in ("0", "141")
