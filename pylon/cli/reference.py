"""docs/reference.md, generated from the registry: every command, its arguments and options.

`python -m pylon.cli.reference > docs/reference.md` writes it; tests/cli/test_reference.py checks
that the checked-in page is what this prints. Imported only by that test and the generator,
never by a command (the registry stays plain data).
"""

from __future__ import annotations

from pylon.cli import commands as registry
from pylon.cli.argv import plain, usage_line
from pylon.cli.spec import FLAG, REST, Command, Group, Opt

INTRO = """Every command of `pylon` and `canon`, generated from the registry (`pylon/cli/commands.py`)
by `python -m pylon.cli.reference > docs/reference.md`; `tests/cli/test_reference.py` fails when
this page is stale. What each command does beyond its flags is in its part's reference page
([canon](reference/canon.md), [edits](reference/edits.md), [workspace](reference/workspace.md),
[guard](reference/guard.md), [agents](reference/agents.md), [board and sessions](reference/serve.md));
the options every command shares (`--json`, `--in`, `--root`, `--mount`) and the conventions are in
[reference/cli.md](reference/cli.md); [README.md](README.md) lists every page.
`pylon help COMMAND --json` prints the same declaration as JSON."""


def _cell(text: str) -> str:
    """Text for one table cell: no line breaks, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _bounds(opt: Opt) -> str:
    parts = []
    if opt.min is not None:
        parts.append(f"at least {plain(opt.min)}")
    if opt.max is not None:
        parts.append(f"at most {plain(opt.max)}")
    if opt.choices:
        parts.append("one of " + ", ".join(f"`{c}`" for c in opt.choices))
    if opt.repeat and "repeatable" not in opt.help:
        parts.append("repeatable")
    if opt.aliases:
        parts.append("old spelling " + ", ".join(f"`{a}`" for a in opt.aliases) + " (deprecated)")
    return "; ".join(parts)


def _options(opts: tuple[Opt, ...]) -> list[str]:
    shown = [opt for opt in opts if not opt.hidden]
    if not shown:
        return []
    out = ["| option | default | |", "|---|---|---|"]
    for opt in shown:
        name = f"`{opt.name} {opt.metavar}`" if opt.kind != FLAG else f"`{opt.name}`"
        default = "" if opt.default in (None, False, "") else f"`{opt.default}`"
        extra = _bounds(opt)
        out.append(f"| {name} | {default} | {_cell(opt.help)}{' (' + extra + ')' if extra else ''} |")
    return out + [""]


def _command(command: Command) -> list[str]:
    prog = "canon" if command.name.startswith("canon") else "pylon"
    out = [f"### `{usage_line(command, prog).removeprefix('usage: ')}`", "", command.summary, ""]
    if command.description:
        out += [command.description, ""]
    if command.args:
        out += ["| argument | |", "|---|---|"]
        for arg in command.args:
            metavar = f"[--] {arg.metavar}" if arg.count == REST else arg.metavar
            choices = f" (one of {', '.join(f'`{c}`' for c in arg.choices)})" if arg.choices else ""
            out.append(f"| `{metavar}` | {_cell(arg.help)}{choices} |")
        out.append("")
    out += _options(command.opts)
    return out + ["```sh", command.example, "```", ""]


def _section(group: Group | None) -> list[str]:
    """The commands directly under `group` (the root when None), then its sub-groups."""
    prefix = group.name if group else ""
    below = registry.children(prefix)
    out = []
    for entry in below:
        if isinstance(entry, Command):
            out += _command(entry)
    for entry in below:
        if isinstance(entry, Group):
            out += [f"## {entry.name}", "", entry.summary, ""] + _section(entry)
    return out


def markdown() -> str:
    """docs/reference.md."""
    out = [
        "# Command reference",
        "",
        INTRO,
        "",
        "## Root options",
        "",
        "Given before the first word (`pylon -C DIR ws status`); `canon` takes them too.",
        "",
    ]
    out += _options(registry.ROOT_OPTS)
    out += ["## pylon", "", registry.ROOT.summary, ""] + _section(None)
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(markdown())
