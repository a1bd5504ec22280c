"""The runner's handling of unexpected failures and broken pipes, driven through real apps."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from pylon.cli.common import APP_SETTINGS
from pylon.cli.runner import run, wants_json
from pylon.errors import PylonError


def _app_that(raises: BaseException) -> typer.Typer:
    app = typer.Typer(**APP_SETTINGS)

    @app.command()
    def boom(json_: bool = typer.Option(False, "--json")) -> None:
        raise raises

    return app


def test_unexpected_error_writes_traceback_log(capsys: pytest.CaptureFixture[str], isolated_env: dict[str, str]) -> None:
    code = run(lambda: _app_that(ZeroDivisionError("division by zero")), [], "pylon")
    captured = capsys.readouterr()
    assert code == 1
    assert captured.err.startswith("error[internal-error]: pylon hit an unexpected ZeroDivisionError")
    assert "Traceback" not in captured.err
    log = Path(captured.err.split("traceback was written to ")[1].split(".log")[0] + ".log")
    assert log.is_file()
    assert log.is_relative_to(Path(isolated_env["XDG_STATE_HOME"]) / "pylon" / "logs")
    assert "ZeroDivisionError" in log.read_text()


def test_unexpected_error_in_json_mode_names_the_log(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(lambda: _app_that(KeyError("x")), ["--json"], "pylon")
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["ok"] is False
    assert doc["error"]["code"] == "internal-error"
    assert Path(doc["error"]["log"]).is_file()


def test_expected_error_renders_code_message_hint(capsys: pytest.CaptureFixture[str]) -> None:
    exc = PylonError("no-article", "Nothing governs x.", "canon write x --capsule ...", exit_code=1)
    code = run(lambda: _app_that(exc), [], "pylon")
    err = capsys.readouterr().err
    assert code == 1
    assert err == "error[no-article]: Nothing governs x.\nhint: canon write x --capsule ...\n"


def test_details_are_merged_into_the_envelope(capsys: pytest.CaptureFixture[str]) -> None:
    exc = PylonError("unseen-lines", "m", "h", exit_code=2, details={"unseen": [1, 2]})
    assert run(lambda: _app_that(exc), ["--json"], "pylon") == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc == {"ok": False, "error": {"code": "unseen-lines", "message": "m", "hint": "h", "unseen": [1, 2]}}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [(["--json"], True), (["--format", "json"], True), (["--format=json"], True),
     (["--", "--json"], False), (["--format", "text"], False)],
)
def test_json_mode_detection(argv: list[str], expected: bool) -> None:
    assert wants_json(argv) is expected


BIG_OUTPUT_APP = """
import sys, typer
from pylon.cli.common import APP_SETTINGS
from pylon.cli.entry import _main
app = typer.Typer(**APP_SETTINGS)
@app.command()
def flood() -> None:
    for i in range(200000):
        sys.stdout.write(f"line {i}\\n")
sys.argv = ["pylon"]
_main(lambda: app, "pylon")
"""


def test_broken_pipe_is_quiet() -> None:
    # The reader goes away mid-output (`| head -c1`): stop quietly, no traceback on stderr.
    proc = subprocess.run(
        f"'{sys.executable}' -c '{BIG_OUTPUT_APP}' | head -c 1 >/dev/null; echo \"${{PIPESTATUS[0]}}\"",
        shell=True, capture_output=True, text=True, executable="/bin/bash",
    )
    assert proc.stderr == ""
    assert proc.stdout.strip() in ("1", "141")  # quiet failure status, never a traceback
