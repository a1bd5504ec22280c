"""Console-script entry points (`pylon`, `canon`). Kept tiny: start-up time is a feature."""

from __future__ import annotations

import sys


def _canon_app():  # type: ignore[no-untyped-def]
    from pylon.cli.canon_cmds import build_canon_app

    return build_canon_app()


def _pylon_app():  # type: ignore[no-untyped-def]
    from pylon.cli.app import build_app

    return build_app()


def pylon_main() -> None:
    from pylon.cli.runner import run

    sys.exit(run(_pylon_app, sys.argv[1:], "pylon"))


def canon_main() -> None:
    from pylon.cli.runner import run

    sys.exit(run(_canon_app, sys.argv[1:], "canon"))
