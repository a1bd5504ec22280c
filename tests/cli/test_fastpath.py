"""The typer-free front door must accept exactly the options the typer apps declare.

If a command gains an option in its typer declaration but not in its fast-path SPECS (or the
reverse), the two paths would parse the same command line differently; this test catches that.
"""

from __future__ import annotations

from importlib import import_module

import pytest
from typer.main import get_command

from pylon.cli.fastpath import FLAG, MULTI, MULTI_PAIR, PAIR, parse_args, split_globals

PARTS = [
    ("pylon.cli.canon_fast", "pylon.cli.canon_cmds", "app"),
    ("pylon.cli.ws_fast", "pylon.cli.ws_cmds", "app"),
    ("pylon.cli.edit_fast", "pylon.cli.edit_cmds", None),
]


def typer_command(cmds_module: str, attr: str | None, name: str):  # type: ignore[no-untyped-def]
    module = import_module(cmds_module)
    if attr is None:  # pylon read / pylon edit: one single-command typer app each
        return get_command(getattr(module, f"{name}_app"))
    group = get_command(getattr(module, attr))
    ctx = group.make_context(group.name or "x", [name], resilient_parsing=True)
    command = group.get_command(ctx, name)
    assert command is not None, f"typer app has no command {name!r}"
    return command


def declared(command) -> dict[str, str]:  # type: ignore[no-untyped-def]
    kinds: dict[str, str] = {}
    for param in command.params:
        if getattr(param, "param_type_name", "") != "option":
            continue
        for opt in param.opts:
            if not opt.startswith("--"):
                continue
            if param.is_flag:
                kinds[opt] = FLAG
            elif param.multiple:
                kinds[opt] = MULTI_PAIR if param.nargs == 2 else MULTI
            elif param.nargs == 2:
                kinds[opt] = PAIR
            else:
                kinds[opt] = "value"
    return kinds


CASES = [
    (fast, cmds, attr, name)
    for fast, cmds, attr in PARTS
    for name in import_module(fast).SPECS
]


@pytest.mark.parametrize(("fast", "cmds", "attr", "name"), CASES, ids=lambda x: str(x).rsplit(".", 1)[-1])
def test_fast_specs_match_typer_declarations(fast: str, cmds: str, attr: str | None, name: str) -> None:
    options, _shape = import_module(fast).SPECS[name]
    fast_kinds = {k: (v if v in (FLAG, MULTI, MULTI_PAIR, PAIR) else "value") for k, v in options.items()}
    assert fast_kinds == declared(typer_command(cmds, attr, name))


def test_unusual_command_lines_are_left_to_typer() -> None:
    opts = {"--json": FLAG, "--limit": "int", "--subject": MULTI}
    assert parse_args(["--help"], opts, "any") is None
    assert parse_args(["--nope"], opts, "any") is None
    assert parse_args(["--limit", "x"], opts, "any") is None
    assert parse_args(["--limit", "1", "--limit", "2"], opts, "any") is None
    assert parse_args(["--json=1"], opts, "any") is None
    assert parse_args(["a", "b"], opts, "one") is None
    assert parse_args([], opts, "many") is None
    assert split_globals(["--version"]) is None
    assert split_globals(["--color", "purple", "read"]) is None


def test_plain_command_lines_parse_like_click() -> None:
    opts = {"--json": FLAG, "--limit": "int", "--subject": MULTI}
    words, values = parse_args(["x", "--subject", "a", "--subject=b", "--limit=3", "--json"], opts, "one")  # type: ignore[misc]
    assert words == ["x"] and values == {"--json": True, "--limit": 3, "--subject": ["a", "b"]}
    words, values = parse_args(["--json", "sh", "-c", "echo --json"], {"--json": FLAG}, "rest")  # type: ignore[misc]
    assert words == ["sh", "-c", "echo --json"] and values["--json"] is True
    assert split_globals(["-C", "a", "-Cb", "--color=never", "ws", "x"]) == (["a", "b"], "never", ["ws", "x"])


def test_repeatable_pairs_collect_every_occurrence() -> None:
    opts = {"--replace": MULTI_PAIR, "--delete": MULTI, "--tag": "str"}
    words, values = parse_args(["f", "--replace", "2", "X", "--delete", "4", "--replace", "3", "Y", "--delete=9"],  # type: ignore[misc]
                               opts, "one")
    assert words == ["f"]
    assert values == {"--replace": [("2", "X"), ("3", "Y")], "--delete": ["4", "9"], "--tag": None}
    assert parse_args(["f", "--replace=2", "X"], opts, "one") is None  # click reads no `=` for two values
    assert parse_args(["f", "--replace", "2"], opts, "one") is None
