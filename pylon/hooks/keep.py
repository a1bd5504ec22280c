"""The keep around an agent's shell command: the state before it (PreToolUse), the op after it
(Codex: its PostToolUse; Claude Code: the agent's next command or the batch's end, PostToolBatch,
whichever comes first). docs/explanation/guard.md.

Before: the state is kept whatever the classifier says, and the command's op is reserved (its
number goes into the note). A checkout whose state cannot be kept refuses the command with the
reason: it would run with nothing to bring it back.

After: the hook takes the checkout's keep lock, marks the command ended, forks and answers at
once; the child, holding the lock, keeps the state after the command and records the op. The next
hook (or pylon command) waits for that lock, so nothing reads a chain half-written, and the client
never waits for the capture. `PYLON_KEEP_DETACH=0` keeps it in the hook's own process.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from pylon.agents.events import HookEvent
    from pylon.workspace.keep.store import Store
    from pylon.workspace.repo import Checkout


def hook_id(event: HookEvent, command: str) -> str:
    """What pairs a command's PostToolUse with its PreToolUse: the client's tool-use id, else the
    session and the command."""
    given = event.raw.get("tool_use_id")
    if isinstance(given, str) and given:
        return given
    from pylon.digest import sha256_hex

    return "cmd-" + sha256_hex(f"{event.session_id}\0{command}".encode("utf-8", "surrogateescape"))[:16]


def turn_of(event: HookEvent) -> str:
    turn = event.raw.get("turn_id")
    return turn if isinstance(turn, str) else ""


def before(event: HookEvent, command: str, root: str) -> tuple[int, list[list[object]]]:
    """Keep the state of the checkout at `root` before `command`: (the number of its op, what the
    state could not hold: [path, bytes, why] each)."""
    from pylon.workspace.keep.chain import before as keep_before
    from pylon.workspace.repo import locate

    return keep_before(
        locate(root),
        command=command,
        hook_id=hook_id(event, command),
        session=event.session_id,
        turn=turn_of(event),
        stream=stream_of(event),
    )


def stream_of(event: HookEvent) -> str:
    """Claude Code runs one agent's shell commands one after another, and pylon registers no
    PostToolUse there (the batch's end records the op, install.py): the agent's next command marks
    the previous one's end. "" for Codex, whose PostToolUse says it for each command."""
    if event.agent != "claude-code" or not event.session_id:
        return ""
    agent = event.raw.get("agent_id")  # a subagent's commands are a stream of their own
    return f"{event.session_id}/{agent}" if isinstance(agent, str) and agent else event.session_id


def after(event: HookEvent, command: str) -> dict[str, object]:
    """The op of a shell command that ended; answers nothing (`{}`)."""
    found = _checkout(event)
    if found is None:
        return {}
    checkout, store, present = found
    from pylon.workspace.keep.chain import after_locked

    ended = hook_id(event, command)
    _detached(
        store,
        checkout.root,
        [ended],
        lambda: after_locked(checkout, store, hook_id=ended, command=command, git_present=present),
    )
    return {}


def _detached(store: Store, root: str, ended: list[str], record: Callable[[], object]) -> None:
    """Take the checkout's keep lock, mark the `ended` commands so in the chain, and run `record` (the
    capture and the op) holding the lock once the client has its answer: in the helper's fork after
    it answered, or in a child of the hook process. The capture starts at once: whatever changes
    after it (a person's edit a moment later) is later work, never the command's. The next hook or
    pylon command waits for that lock. `PYLON_KEEP_DETACH=0`: in this process, before the answer."""
    from pylon.hooks import helper_ask
    from pylon.workspace.keep.chain import lock

    held = lock(store, root)
    held.__enter__()
    _mark_ended(store, root, ended)

    def work() -> None:
        try:
            record()
        except Exception as exc:  # logged; the next hook records what changed instead
            _log(exc)
        finally:
            held.__exit__(None, None, None)

    if os.environ.get("PYLON_KEEP_DETACH", "1") == "0":
        work()
    elif not helper_ask.after_answer(work):
        if _fork_child():
            os.close(held.fd)  # the child keeps the lock; the client goes on
            return
        try:
            work()
        finally:
            os._exit(0)


def _mark_ended(store: Store, root: str, ended: list[str]) -> None:
    """Say in the chain that these commands ended, so the next command, a file tool's write and the
    batch's end settle them rather than count them as running (a capture killed on the way)."""
    from pylon.workspace.keep.chain import Chain

    chain = Chain(store, root)
    marked = [h for h in ended if h in chain.running]
    for h in marked:
        chain.running[h]["ended"] = True
    if marked:
        chain.save()


def batch_done(event: HookEvent) -> dict[str, object]:
    """PostToolBatch or Stop: every command of the session still `running` in the chain has ended (in
    Claude Code, where no PostToolUse is registered, that is every shell command; one refused by the
    person gets none in any client): their op is recorded now, by a detached child as after a
    PostToolUse. Costs a file read when none is running. Never an answer, never a failure (the next
    hook settles what this one could not)."""
    try:
        _batch_done(event)
    except Exception as exc:
        _log(exc)
    return {}


def _batch_done(event: HookEvent) -> None:
    cwd = event.cwd if event.cwd and os.path.isdir(event.cwd) else os.getcwd()
    found = _chain_file(cwd)
    if found is None:
        _batch_done_lost(event, cwd)
        return
    root, chain_path = found
    from pylon.workspace.index import read_json

    running = (read_json(chain_path) or {}).get("running") or {}
    mine = _still_running(running, event.session_id)
    if mine:
        from pylon.workspace.keep.chain import finished_locked
        from pylon.workspace.keep.store import for_checkout
        from pylon.workspace.repo import locate

        checkout = locate(root)
        store = for_checkout(checkout, create=False)
        if store is not None:
            _detached(store, root, mine, lambda: finished_locked(checkout, store, mine))


def _still_running(running: Mapping[str, object], session: str) -> list[str]:
    """The session's commands the chain has running whose end no hook reported yet."""
    return [k for k, v in running.items() if isinstance(v, dict) and v.get("session") == session and not v.get("ended")]


def _batch_done_lost(event: HookEvent, cwd: str) -> None:
    """The batch's end in a checkout whose `.git` a command of the batch removed: the op, read
    through the store's copy of `.git`, so `ws undo` there brings `.git` and the rest back."""
    from pylon.workspace.keep.chain import Chain, finished_locked
    from pylon.workspace.keep.recover import lost

    gone = lost(cwd)
    if gone is None:
        return
    checkout, store = gone
    running = Chain(store, checkout.root).running
    mine = _still_running(running, event.session_id)
    if mine:
        _detached(store, checkout.root, mine, lambda: finished_locked(checkout, store, mine, git_present=False))


def settle_before_write(event: HookEvent) -> None:
    """A file tool is about to write: the shell commands that ended before it (marked by their
    PostToolUse or batch, or the same agent's previous command in Claude Code) get their op first, so
    the write is not counted as theirs. A file read when none is pending."""
    try:
        cwd = event.cwd if event.cwd and os.path.isdir(event.cwd) else os.getcwd()
        found = _chain_file(cwd)
        if found is None:
            return
        from pylon.workspace.index import read_json

        running = (read_json(found[1]) or {}).get("running") or {}
        stream = stream_of(event)
        due = [
            h
            for h, v in running.items()
            if isinstance(v, dict) and (v.get("ended") or (stream and v.get("stream") == stream))
        ]
        if due:
            from pylon.workspace.keep.chain import finished
            from pylon.workspace.repo import locate

            finished(locate(found[0]), due)  # waits for a capture under way; then nothing is left
    except Exception as exc:  # the write goes on; at worst the op names it too
        _log(exc)


def _chain_file(cwd: str) -> tuple[str, str] | None:
    """(checkout root, its chain file) found by a few reads, without git: the hook at the end of every
    batch pays only this when no command of the session is left running."""
    from pylon.findroot import find_root

    root, _ = find_root(cwd)
    if root is None:
        return None
    dotgit = os.path.join(root, ".git")
    common = dotgit
    try:
        if os.path.isfile(dotgit):
            with open(dotgit, encoding="utf-8", errors="surrogateescape") as fh:
                text = fh.read(4096).strip()
            git_dir = os.path.join(root, text[len("gitdir:") :].strip()) if text.startswith("gitdir:") else ""
            with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
                common = os.path.normpath(os.path.join(git_dir, fh.read().strip()))
    except OSError:
        return None
    from pylon.workspace.keep.store import of_repo, path_key

    store = of_repo(common)
    if store is None:
        return None
    return root, os.path.join(store.dir, "checkouts", path_key(root), "chain.json")


def _fork_child() -> bool:
    """Fork; True in the parent. The child is on its own (new session, no client pipes)."""
    pid = os.fork()
    if pid:
        return True
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    return False


def _log(exc: BaseException) -> None:
    import traceback

    from pylon.state import state_home

    try:
        path = os.path.join(state_home(), "logs", "guard-hook.log")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("".join(traceback.format_exception(exc)))
    except OSError:
        pass


def _checkout(event: HookEvent) -> tuple[Checkout, Store, bool] | None:
    """The checkout the command ran in and its store; a checkout whose `.git` is gone is read through
    the store's copy of it. None when it keeps no state."""
    from pylon.findroot import find_root
    from pylon.workspace.keep.store import for_checkout

    cwd = event.cwd if event.cwd and os.path.isdir(event.cwd) else os.getcwd()
    root, _ = find_root(cwd)
    from pylon.workspace.keep.recover import lost
    from pylon.workspace.keep.store import usable

    if root is not None and usable(root):
        from pylon.workspace.repo import locate

        checkout = locate(root)
        store = for_checkout(checkout, create=False)
        return (checkout, store, True) if store is not None else None

    gone = lost(cwd)
    return (*gone, False) if gone is not None else None
