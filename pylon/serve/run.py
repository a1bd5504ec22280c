"""`pylon serve`'s life: claim the checkout's board lock, listen, watch, serve until Ctrl-C (or
SIGTERM), then stop the watcher, end every event stream, close the socket and drop the record."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable

from pylon.serve.data import Board

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.serve.app import BoardServer
    from pylon.serve.events import Watcher


def _owned_roots(board: Board) -> list[str]:
    """The folders to watch: the checkout, its owned worktrees, and every live worktree pylon does
    not own (made by a client or by `git worktree add`, or one that left pylon's ownership): the
    board shows and compares them too, so their changes must be seen to keep a survey."""
    from pylon.workspace.worktrees import owned
    from pylon.workspace.worktrees.foreign import others

    try:
        checkout = board.checkout()
        info = owned.survey(checkout)
        alien = [o.path for o in others(info, checkout)]
    except Exception:  # a survey that fails now is retried on the next change
        return [board.root]
    return [board.root, *(o.path for o in info.owned.values() if o.present), *alien]


def _watch(server: BoardServer, board: Board) -> Watcher | None:
    """Start the watcher in the background (a large tree takes a while to watch); None without watchdog."""
    from pylon.serve.events import Watcher

    def changed(kind: str, path: str) -> None:
        if kind == "memory":
            board.memory_generation += 1
        board.keep.changed(path)  # `.canon/` is in the checkout too: `ws list` may read it differently

    checkout = board.checkout()
    git_dir = os.path.realpath(checkout.common_dir)
    watcher = Watcher(server.broker, [git_dir], changed)

    def start() -> None:
        try:
            watcher.start(_owned_roots(board))
        except (ImportError, OSError):
            board.memory_generation = -1  # no events: the graph is never cached, no survey kept
            return
        watched = watcher.covered()
        if any(git_dir == root or git_dir.startswith(root + "/") for root in watched):
            board.keep.alive = watcher.alive
            board.keep.ready(watched, [git_dir])  # from now on every change is seen (HEAD and refs too)
        if not server.stopping.is_set():
            from pylon.serve.data import agents

            try:
                agents(board, {})  # the page's first question, answered before it is asked
            except Exception:  # the page asks again and shows the error itself
                pass

    threading.Thread(target=start, name="pylon-serve-watch", daemon=True).start()

    def follow() -> None:  # worktrees come and go: follow them on each workspace batch
        stream = server.broker.subscribe()
        while True:
            event = stream.get()
            if event is None:
                return
            watcher.refresh(_owned_roots(board))
            board.keep.watched = watcher.covered()

    threading.Thread(target=follow, name="pylon-serve-follow", daemon=True).start()
    return watcher


def serve(
    root: str,
    *,
    port: int = 0,
    open_browser: bool = False,
    allow_actions: bool = False,
    announce: Callable[[str, str], None] = lambda url, key: print(url),
) -> None:
    """Serve until Ctrl-C; `announce(login link, key)` once the board listens."""
    from pylon.serve.app import bind
    from pylon.serve.instance import claim
    from pylon.workspace.repo import locate

    checkout = locate(root)
    instance = claim(checkout.pylon_dir())
    try:
        board = Board(checkout.root, allow_actions)
        server = bind(port, board)
        gate = server.gate
        url = gate.url()  # a login link: it opens the board once (security.py)
        instance.publish(gate.address, gate.port, gate.key)
        watcher = _watch(server, board)
        # TERM and INT both stop it cleanly; INT explicitly, because a board started as a background
        # job of a script inherits an ignored SIGINT, and `kill -INT` must still stop it
        previous = signal.signal(signal.SIGTERM, _interrupt)
        previous_int = signal.signal(signal.SIGINT, _interrupt)
        try:  # from the announcement on, Ctrl-C is a clean stop (a user may press it the moment the URL shows)
            announce(url, gate.key)
            if open_browser:
                import webbrowser

                webbrowser.open(gate.url())  # a link of its own: the printed one still opens another browser
            server.serve_forever(poll_interval=0.2)
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)
            signal.signal(signal.SIGINT, previous_int)
            server.stopping.set()
            server.broker.close()
            if watcher is not None:
                watcher.stop()
            server.server_close()
    finally:
        instance.close()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
