"""Handler of `pylon serve`: start the board (pylon.serve) and say where it is."""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Protocol

    class ServeArgs(Protocol):
        port: int
        open: bool
        allow_actions: bool
        json: bool


def serve(args: ServeArgs) -> int:
    import os

    from pylon.cli.output import err, out
    from pylon.serve.run import serve as run

    def announce(url: str, key: str) -> None:
        if args.json:  # one line, as soon as the board listens: {url, address, port, token, allow_actions}
            from urllib.parse import urlsplit

            from pylon.cli.output import ok_json

            parts = urlsplit(url)
            ok_json(
                {
                    "url": url,
                    "address": f"{parts.scheme}://{parts.netloc}/",
                    "port": parts.port,
                    "token": key,
                    "allow_actions": args.allow_actions,
                }
            )
            return
        out(url)
        mode = "actions allowed (apply, sync, undo, restore, rm)" if args.allow_actions else "read-only"
        err(
            f"pylon: serving this checkout on 127.0.0.1 only, {mode}; open the link above (it opens the board once, "
            "then your browser holds a session cookie). Ctrl-C stops it."
        )

    run(os.getcwd(), port=args.port, open_browser=args.open, allow_actions=args.allow_actions, announce=announce)
    err("pylon: stopped")
    return 0
