"""Console-script entry points (`pylon`, `canon`). Kept tiny: start-up time is a feature."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing costs ~10 ms of start-up; annotations are strings anyway
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def _canon_app() -> Any:
    from pylon.cli.canon_cmds import build_canon_app

    return build_canon_app()


def _pylon_app() -> Any:
    from pylon.cli.app import build_app

    return build_app()


def _finish(code: int) -> None:
    # Flush here so a reader that went away (`| head`) cannot make the interpreter print
    # "Exception ignored ... BrokenPipeError" at shutdown.
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = code or 141
    sys.exit(code)


def _main(build: Callable[[], Any], prog: str) -> None:
    from pylon.cli.runner import run

    _finish(run(build, sys.argv[1:], prog))


def pylon_main() -> None:
    # Plain command lines of the hot parts skip typer's import (see fastpath.py).
    from pylon.cli.fastpath import pylon_fast_main

    code = pylon_fast_main(sys.argv[1:])
    if code is not None:
        _finish(code)
    _main(_pylon_app, "pylon")


def canon_main() -> None:
    from pylon.cli.fastpath import fast_main

    code = fast_main(sys.argv[1:], "pylon.cli.canon_fast", None)
    if code is not None:
        _finish(code)
    _main(_canon_app, "canon")
