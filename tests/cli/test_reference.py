"""docs/reference.md is generated from the registry, and is current (a stale page fails here, the
way `cog --check` fails in CI): `python -m pylon.cli.reference > docs/reference.md` refreshes it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from pylon.cli import commands as registry
from pylon.cli import reference

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference.md"


def test_docs_reference_md_is_current() -> None:
    assert PAGE.read_text(encoding="utf-8") == reference.markdown(), (
        "docs/reference.md is stale: run `python -m pylon.cli.reference > docs/reference.md`"
    )


def test_the_reference_names_every_command_option_and_example() -> None:
    page = reference.markdown()
    headings = re.findall(r"^### `(?:pylon )?(.+?)(?: \[OPTIONS\]| [A-Z\[].*)?`$", page, re.M)
    assert sorted(headings) == sorted(c.name for c in registry.COMMANDS)
    for command in registry.COMMANDS:
        shown = command.name if command.name.startswith("canon") else f"pylon {command.name}"
        heading = re.search(rf"^### `{re.escape(shown)}[ `]", page, re.M)
        assert heading is not None, shown
        start = heading.start()
        section = page[start : page.find("\n### ", start)]
        assert command.summary in section and command.example in section, command.name
        for opt in command.opts:
            assert opt.hidden or f"`{opt.name}" in section, (command.name, opt.name)


def test_the_module_prints_the_page() -> None:
    """The documented command line writes exactly the page."""
    out = subprocess.run(
        [sys.executable, "-m", "pylon.cli.reference"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out == reference.markdown()


def test_documentation_links_the_reference() -> None:
    for doc in ("README.md", "docs/README.md", "docs/reference/cli.md"):
        assert "reference.md" in (ROOT / doc).read_text(encoding="utf-8"), f"{doc} does not link docs/reference.md"
