"""Options and helpers shared by every typer app: global options, --json, lazy sub-apps."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from pylon.errors import UsageError

JsonOpt = Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")]

APP_SETTINGS: dict[str, Any] = {
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
    "context_settings": {"help_option_names": ["-h", "--help"]},
}


def _print_version(value: bool) -> None:
    if value:
        from pylon import __version__

        typer.echo(f"pylon {__version__}")
        raise typer.Exit(0)


def global_options(
    directory: Annotated[
        list[Path] | None,
        typer.Option("-C", metavar="DIR", help="Run as if started in DIR (like git -C); repeatable."),
    ] = None,
    color: Annotated[
        str, typer.Option("--color", metavar="WHEN", help="Colour: auto (TTY only), always, never.")
    ] = "auto",
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_print_version, help="Print the version.")
    ] = False,
) -> None:
    """Root-level options, applied before any subcommand runs."""
    from pylon.cli.fastpath import apply_globals

    if color not in ("auto", "always", "never"):
        raise UsageError("usage", f"--color takes auto, always or never, not {color!r}.", "pylon --color never ...")
    apply_globals([str(d) for d in directory or []], color)


def lazy_group(entries: dict[str, tuple[str, str, str]]) -> type[TyperGroup]:
    """A click group class whose named sub-commands are imported only when invoked.

    `entries` maps a command name to (module, attribute holding a typer.Typer, short help). Start-up
    then costs only the command that runs, not every command of the tool.
    """

    class LazyGroup(TyperGroup):
        def list_commands(self, ctx: Any) -> list[str]:
            return sorted(set(super().list_commands(ctx)) | set(entries))

        def get_command(self, ctx: Any, cmd_name: str) -> Any:
            if cmd_name in entries:
                module_name, attr, _help = entries[cmd_name]
                from typer.main import get_command

                command = get_command(getattr(import_module(module_name), attr))
                command.name = cmd_name
                return command
            return super().get_command(ctx, cmd_name)

        def format_commands(self, ctx: Any, formatter: Any) -> None:
            # Help lists lazy commands from their declared one-liners, without importing them.
            rows = [(name, entries[name][2]) for name in sorted(entries)]
            for name in super().list_commands(ctx):
                cmd = super().get_command(ctx, name)
                if cmd is not None and not cmd.hidden:
                    rows.append((name, cmd.get_short_help_str(80)))
            if rows:
                with formatter.section("Commands"):
                    formatter.write_dl(sorted(rows))

    return LazyGroup
