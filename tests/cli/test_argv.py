"""The one parser, driven by command lines generated from the registry (hypothesis).

For every command: a valid line parses to exactly the values it was built from; a repeated
single-value option, an unknown option, a bad value or a wrong number of arguments is a usage
error naming the command's usage line. Nothing is dropped or last-wins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pylon.cli import commands as registry
from pylon.cli.argv import parse
from pylon.cli.spec import ANY, FLAG, FLOAT, INT, MANY, ONE, OPTIONAL, PAIR, REST, Command, Opt
from pylon.errors import UsageError
from tests.conftest import sized

COMMANDS = list(registry.COMMANDS)
# Words that never look like options (a leading `-` is only safe after `--`).
WORD = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=8).filter(
    lambda w: not w.startswith("-")
)
ANY_WORD = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=0, max_size=8)


def prog_and_prefix(command: Command, canon_script: bool) -> tuple[str, list[str]]:
    if canon_script and command.name.startswith("canon "):
        return "canon", command.words[1:]
    return "pylon", command.words


def value_for(opt: Opt) -> st.SearchStrategy[object]:
    if opt.choices:
        return st.sampled_from(opt.choices)
    if opt.kind == INT:
        lo = int(opt.min) if opt.min is not None else -1000
        return st.integers(lo, int(opt.max) if opt.max is not None else lo + 100000)
    if opt.kind == FLOAT:
        low = opt.min if opt.min is not None else -1e6
        return st.floats(low, opt.max if opt.max is not None else 1e6, allow_nan=False)
    if opt.kind == PAIR:
        return st.tuples(ANY_WORD, ANY_WORD)
    return ANY_WORD


def option_words(opt: Opt, value: object, inline: bool) -> list[str]:
    if opt.kind == FLAG:
        return [opt.name]
    if opt.kind == PAIR:
        assert isinstance(value, tuple)
        return [opt.name, *(w for v in value for w in escaped(v))]
    text = repr(value) if opt.kind == FLOAT else str(value)
    return [f"{opt.name}={text}"] if inline else [opt.name, *escaped(text)]


def escaped(value: str) -> list[str]:
    """A value word as written after its option: one that starts with `--` takes a `--` before it."""
    return ["--", value] if value.startswith("--") else [value]


@st.composite
def command_lines(draw: st.DrawFn) -> tuple[str, list[str], Command, dict[str, Any]]:
    """(prog, argv, command, the values a correct parser must produce)."""
    command = draw(st.sampled_from(COMMANDS))
    prog, argv = prog_and_prefix(command, draw(st.booleans()))
    expected: dict[str, Any] = {o.dest: ([] if o.repeat else o.default) for o in command.opts}
    chunks: list[tuple[Opt, object, list[str]]] = []
    for opt in command.opts:
        if opt.hidden:
            continue
        for _ in range(draw(st.integers(0, 3 if opt.repeat else 1))):
            value = True if opt.kind == FLAG else draw(value_for(opt))
            chunks.append((opt, value, option_words(opt, value, draw(st.booleans()) and opt.kind != PAIR)))
    words: list[str] = []
    for arg in command.args:
        word = st.sampled_from(arg.choices) if arg.choices else WORD
        if arg.count == ONE:
            got: object = draw(word)
            words.append(str(got))
        elif arg.count == OPTIONAL:
            got = draw(st.one_of(st.none(), word))
            words += [str(got)] if got is not None else []
            got = arg.default if got is None else got
        else:
            got = draw(st.lists(WORD, min_size=0 if arg.count == ANY else 1, max_size=3))
            words += list(got)
        expected[arg.dest] = got
    chunks = draw(st.permutations(chunks))
    for opt, value, _ in chunks:  # repeats are kept in command-line order
        if opt.repeat:
            expected[opt.dest].append(value)
        else:
            expected[opt.dest] = value
    rest = any(a.count == REST for a in command.args)
    if rest or draw(st.booleans()):
        dashes = ["--"] if rest or draw(st.booleans()) else []
        argv += [w for _, _, c in chunks for w in c] + dashes + words
    else:  # options and positionals interleaved, positionals in order
        cut = sorted(draw(st.lists(st.integers(0, len(chunks)), min_size=len(words), max_size=len(words))))
        for i, (_, _, c) in enumerate(chunks):
            argv += [w for j, w in enumerate(words) if cut[j] == i] + c
        argv += [w for j, w in enumerate(words) if cut[j] == len(chunks)]
    return prog, argv, command, expected


@settings(max_examples=sized(200, 1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_lines())
def test_valid_lines_parse_to_exactly_their_values(line: tuple[str, list[str], Command, dict[str, object]]) -> None:
    prog, argv, command, expected = line
    parsed = parse(prog, argv)
    assert parsed.target is command and not parsed.help and parsed.args is not None
    assert vars(parsed.args) == expected, argv


def usage_error(prog: str, argv: list[str]) -> UsageError:
    with pytest.raises(UsageError) as caught:
        parse(prog, argv)
    err = caught.value
    assert err.code == "usage" and err.exit_code == 2
    assert str(err.details["usage"]).startswith("usage: ")
    return err


@settings(max_examples=sized(100, 600), deadline=None)
@given(command_lines(), st.data())
def test_a_repeated_single_value_option_is_refused(
    line: tuple[str, list[str], Command, dict[str, object]], data: st.DataObject
) -> None:
    prog, argv, command, _ = line
    single = [o for o in command.opts if not o.repeat and o.kind != FLAG and not o.hidden]
    if not single:
        return
    opt = data.draw(st.sampled_from(single))
    twice = option_words(opt, data.draw(value_for(opt)), False) + option_words(opt, data.draw(value_for(opt)), True)
    at = len(command.words) if prog == "pylon" else len(command.words) - 1
    err = usage_error(prog, argv[:at] + twice + argv[at:])
    assert f"{opt.name} was given twice" in err.message


@settings(max_examples=sized(80, 400), deadline=None)
@given(command_lines(), st.sampled_from(["--bogus", "--jsn", "--limit-all", "-x", "--help-me"]))
def test_an_unknown_option_is_refused(line: tuple[str, list[str], Command, dict[str, object]], bad: str) -> None:
    prog, argv, command, _ = line
    if command.option(bad) is not None:
        return
    at = len(command.words) if prog == "pylon" else len(command.words) - 1
    err = usage_error(prog, argv[:at] + [bad] + argv[at:])
    assert err.message.startswith(f"No such option: {bad}")


BAD_NUMBERS = ["many", "1.5x", "", " 3", "0x10", "3_000", "٣", "nan", "inf"]


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_bad_values_and_counts_are_refused(command: Command) -> None:
    prog, argv = prog_and_prefix(command, False)
    needed = [w for a in command.args if a.count in (ONE, MANY, REST) for w in ["x"]]
    for opt in command.opts:
        if opt.kind in (INT, FLOAT):
            for bad in BAD_NUMBERS if opt.kind == INT else ["many", "nan", "inf", ""]:
                assert "takes" in usage_error(prog, [*argv, opt.name, bad, *needed]).message
            if opt.min is not None:
                below = str(int(opt.min) - 1)
                assert "at least" in usage_error(prog, [*argv, opt.name, below, *needed]).message
            if opt.max is not None:
                above = str(int(opt.max) + 1)
                assert "at most" in usage_error(prog, [*argv, opt.name, above, *needed]).message
        if opt.choices:
            assert "takes" in usage_error(prog, [*argv, opt.name, "purple", *needed]).message
        if opt.kind == FLAG:
            assert "takes no value" in usage_error(prog, [*argv, f"{opt.name}=yes", *needed]).message
        elif not opt.hidden:  # the value is missing at the end (`ws run` reads its own words from `x` on)
            last = [opt.name] if any(a.count == REST for a in command.args) else [*needed, opt.name]
            assert "needs" in usage_error(prog, [*argv, *last]).message
    if needed:
        assert usage_error(prog, argv).message.startswith("Missing argument ")
    if not any(a.count in (MANY, ANY, REST) for a in command.args):
        extra = ["x"] * (len([a for a in command.args if a.count in (ONE, OPTIONAL)]) + 1)
        assert "unexpected extra argument" in usage_error(prog, [*argv, *extra]).message


def test_help_is_asked_at_every_level_but_not_inside_a_command_to_run() -> None:
    for argv in (["--help"], ["-h"], ["ws", "-h"], ["ws", "diff", "--since", "x", "--help"], ["canon", "lint", "-h"]):
        assert parse("pylon", argv).help == "asked", argv
    assert parse("pylon", ["ws"]).help == "bare"
    run = parse("pylon", ["ws", "run", "grep", "--help"])
    assert not run.help and vars(run.args)["command"] == ["grep", "--help"]
    dashed = parse("pylon", ["canon", "search", "--", "--help"])
    assert vars(dashed.args)["query"] == ["--help"]
    assert parse("pylon", ["--version", "ws"]).version


def test_root_options_and_unknown_commands() -> None:
    parsed = parse("pylon", ["-C", "a", "-Cb", "--color=never", "-C", "c", "ws", "status"])
    assert parsed.directory == ["a", "b", "c"] and parsed.color == "never"
    assert "--color takes auto, always or never" in usage_error("pylon", ["--color", "purple", "guide"]).message
    assert "was given twice" in usage_error("pylon", ["--color", "never", "--color", "auto", "guide"]).message
    err = usage_error("pylon", ["ws", "chnages"])
    assert err.message == "No such command: chnages (did you mean changes?)."
    assert err.details["usage"] == "usage: pylon ws [OPTIONS] COMMAND [ARGS]..."
    assert usage_error("canon", ["raed"]).message == "No such command: raed (did you mean read?)."


@pytest.mark.parametrize(
    "command", [c for c in COMMANDS if any(o.kind not in (FLAG,) for o in c.opts)], ids=lambda c: c.name
)
def test_a_value_never_swallows_an_option(command: Command) -> None:
    """`pylon edit F#TAG --replace 1 --json` once wrote `--json` into the file: a value word that
    starts with `--` is refused, with the exact corrected line as the hint, unless escaped."""
    prog, argv = prog_and_prefix(command, False)
    rest = any(a.count == REST for a in command.args)
    needed = [] if rest else [(a.choices[0] if a.choices else "x") for a in command.args if a.count in (ONE, MANY)]
    tail = ["--", "true"] if rest else []  # a command that takes the rest of the line (ws run) needs one
    for opt in command.opts:
        if opt.kind == FLAG or opt.hidden or opt.choices or opt.kind in (INT, FLOAT):
            continue
        first = ["1"] if opt.kind == PAIR else []
        line = [*argv, *needed, opt.name, *first, "--json", *tail]
        err = usage_error(prog, line)
        assert "looks like an option" in err.message, line
        fixed = (
            [*argv, *needed, opt.name, *first, "--", "--json", *tail]
            if opt.kind == PAIR
            else [*argv, *needed, f"{opt.name}=--json", *tail]
        )
        import shlex

        assert err.hint == shlex.join([prog, *fixed])
        parsed = parse(prog, shlex.split(err.hint)[1:])  # the hint parses, and means the value
        value = vars(parsed.args)[opt.dest]
        got = value[-1] if opt.repeat else value
        assert (got[-1] if opt.kind == PAIR else got) == "--json"


def test_edit_replace_with_a_flag_after_it_writes_nothing(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    from pylon.cli.main import run

    folder = Path(str(tmp_path))
    monkeypatch.chdir(folder)
    (folder / "f.txt").write_text("one\ntwo\n")
    assert run("pylon", ["read", "f.txt", "--json"]) == 0
    import json

    tag = json.loads(capsys.readouterr().out)["tag"]
    assert run("pylon", ["edit", f"f.txt#{tag}", "--replace", "1", "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]  # --json was meant, so the refusal is JSON
    assert (folder / "f.txt").read_text() == "one\ntwo\n"
    assert error["code"] == "usage" and error["hint"] == f"pylon edit 'f.txt#{tag}' --replace 1 -- --json"


def test_old_option_spellings_are_deprecated_aliases(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One name per idea (docs/reference/cli.md): an old spelling means the same option and warns on stderr."""
    from pylon.cli.main import run

    pairs = [
        (["ws", "watch"], "--settle", "--debounce", "0.5", "settle"),
        (["ws", "diff"], "--out", "--output", "f.diff", "out"),
        (["ws", "run"], "--max-output", "--max-bytes", "100", "max_output"),
        (["canon", "lint"], "--base", "--since", "HEAD", "base"),
    ]
    for words, old, new, value, dest in pairs:
        assert (
            vars(parse("pylon", [*words, old, value, "--", "x"] if words[1] == "run" else [*words, old, value]).args)[
                dest
            ]
            == vars(
                parse("pylon", [*words, new, value, "--", "x"] if words[1] == "run" else [*words, new, value]).args
            )[dest]
        )
        parsed = parse("pylon", [*words, f"{old}={value}"] if words[1] != "run" else [*words, f"{old}={value}", "x"])
        assert parsed.notes == [f"{old} is deprecated and will go in a coming release; use {new} (the same option)."]
        assert "given twice" in usage_error("pylon", [*words, old, value, new, value]).message
    documented = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    aliases = [(c.name, alias) for c in COMMANDS for o in c.opts for alias in o.aliases]
    assert len(aliases) == 4 and all(
        f"`{name.split()[-1]} {alias}`" in documented or f"`{name} {alias}`" in documented for name, alias in aliases
    ), aliases
    monkeypatch.chdir(tmp_path)  # not a git checkout: the command fails after the warning
    assert run("pylon", ["ws", "diff", "--out", "x.diff"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("warning: --out is deprecated") and "error[not-a-git-checkout]" in err
