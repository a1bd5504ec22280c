"""`pylon read` / `pylon edit` option sets for the typer-free front door (see pylon/cli/fastpath.py).

`dispatch` calls the same functions as the typer apps (edit_handlers.do_read / do_edit).
"""

from __future__ import annotations

from pylon.cli.fastpath import FLAG, INT, MULTI, MULTI_PAIR, STR

SPECS: dict[str, tuple[dict[str, str], str]] = {
    "read": ({"--offset": INT, "--limit": INT, "--grep": STR, "--context": INT, "--json": FLAG}, "one"),
    "edit": (
        {
            # The one-line operation flags repeat: every occurrence is one operation of the request.
            "--tag": STR, "--ops-file": STR, "--replace": MULTI_PAIR, "--delete": MULTI, "--insert-after": MULTI_PAIR,
            "--insert-before": MULTI_PAIR, "--rebase": FLAG, "--dry-run": FLAG, "--show": FLAG,
            "--allow-echo": FLAG, "--allow-indent-mix": FLAG, "--json": FLAG,
        },
        "one",
    ),
}


def dispatch(command: str, words: list[str], v: dict[str, object]) -> None:
    from pylon.cli import edit_handlers

    if command == "read":
        offset = 1 if v["--offset"] is None else v["--offset"]
        edit_handlers.do_read(words[0], offset, v["--limit"], bool(v["--json"]), v["--grep"], v["--context"])  # type: ignore[arg-type]
        return
    edit_handlers.do_edit(
        words[0], v["--tag"], v["--ops-file"], v["--replace"], v["--delete"], v["--insert-after"],  # type: ignore[arg-type]
        v["--insert-before"], bool(v["--rebase"]), bool(v["--dry-run"]), bool(v["--show"]),  # type: ignore[arg-type]
        bool(v["--allow-echo"]), bool(v["--allow-indent-mix"]), bool(v["--json"]),
    )
