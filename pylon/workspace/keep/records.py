"""The shell ops the chain writes into the store's ledger (keep/ledger.py): a command's, from the
state before it to the state after, and an `outside` one for changes no command explains; each
numbered above every op the repository's log and the store hold (chain.py keeps the states)."""

from __future__ import annotations

import os
import time

from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from pylon.workspace.keep.kept import Kept
    from pylon.workspace.keep.store import Store

    class Chain(Protocol):  # what of chain.Chain is read here (chain.py imports this module)
        store: Store
        last: str | None


def first_line(command: str) -> str:
    lines = command.strip().splitlines() or [""]
    return lines[0][:200] + (" ..." if len(lines) > 1 or len(lines[0]) > 200 else "")


def complete(
    checkout: Checkout, chain: Chain, run: dict[str, object], hook_id: str, kept: Kept, others: list[str]
) -> int:
    from pylon.workspace.keep.changes import summary

    assert chain.last is not None
    command = str(run.get("command") or "")
    seq = int(str(run.get("seq") or 0))
    title = f"shell: {first_line(command)}"
    data: dict[str, object] = {
        "hook_id": hook_id,
        "session": run.get("session") or "",
        "changed": summary(checkout, chain.store, chain.last, kept),
    }
    if others:
        data["alongside"] = [first_line(c) for c in others]
        title = f"{title} (while {'; '.join(first_line(c) for c in others)[:200]} ran)"
    if _overtaken(checkout, chain, seq):  # ops are undone newest first: this one finished last
        from pylon.workspace.keep.store import next_seq

        data["was"] = seq
        seq = next_seq(chain.store, at_least=repo_last(checkout))
    now = int(time.time())
    started = int(float(str(run.get("time") or now)))
    _save(checkout, chain, kept, seq, title, command, data, started=started, pid=run.get("pid"))
    return seq


def _save(
    checkout: Checkout,
    chain: Chain,
    kept: Kept,
    seq: int,
    title: str,
    command: str | None,
    data: dict[str, object],
    *,
    started: int,
    pid: object,
) -> None:
    """Write op `seq` (a finished shell op from the chain's last state to `kept`) to the store's ledger."""
    from pylon.workspace.keep import ledger

    assert chain.last is not None
    record = {
        "v": 1,
        "kind": "shell",
        "status": "done",
        "title": title,
        "time": started,
        "finished": int(time.time()),
        # an op step in the op log's format (oplog.Step.to_dict), without importing the op log
        "steps": [{"root": checkout.root, "before": chain.last, "after": kept.commit, "head": "keep"}],
        "data": data,
        "anchors": [],
        "module": ledger.MODULE,
        "command": command,
        "pid": pid,
        "from": checkout.root,
    }
    ledger.save(ledger.path_of(chain.store, checkout.root, seq), record)


def repo_last(checkout: Checkout) -> int:
    """The highest number of the repository's op log (refs/pylon/ops/<n>), 0 when it has none."""
    common = checkout.common_dir
    if not os.path.isdir(common):
        return 0  # the repository may be gone (.git removed): the store's numbers hold
    if os.path.exists(os.path.join(common, "reftable")):
        from pylon.workspace import git

        code, out, _ = git.run_full(["for-each-ref", "--format=%(refname)", "refs/pylon/ops/"], cwd=checkout.root)
        names = out.decode().splitlines() if code == 0 else []
    else:  # files backend: read the refs without a git process (this runs before every shell command)
        names = _files_refs(common, "refs/pylon/ops/")
    tails = [line.rsplit("/", 1)[-1] for line in names]
    return max((int(t) for t in tails if t.isdigit()), default=0)


def _files_refs(common: str, prefix: str) -> list[str]:
    """Ref names under `prefix` in a files-backend repository: loose ones and packed ones."""
    from pylon.workspace.repo import packed_refs

    found: list[str] = []
    try:
        found += [prefix + name for name in os.listdir(os.path.join(common, prefix))]
    except OSError:
        pass
    return found + [ref for ref in packed_refs(common) if ref.startswith(prefix)]


def _overtaken(checkout: Checkout, chain: Chain, seq: int) -> bool:
    """Has an op with a higher number been written already (so this one would not be undone first)?"""
    from pylon.workspace.keep import ledger

    if any(other > seq for other, _path, _record in ledger.load(chain.store, checkout.root)):
        return True
    return repo_last(checkout) > seq


def record(
    checkout: Checkout, chain: Chain, kept: Kept, title: str, command: str | None, data: dict[str, object]
) -> int:
    """A finished op from the chain's last state to `kept` (changes no running command explains)."""
    from pylon.workspace.keep.changes import summary
    from pylon.workspace.keep.store import next_seq

    assert chain.last is not None
    seq = next_seq(chain.store, at_least=repo_last(checkout))
    changed = summary(checkout, chain.store, chain.last, kept)
    data = {**data, "changed": changed, **({} if command else {"outside": True})}
    _save(checkout, chain, kept, seq, title, command, data, started=int(time.time()), pid=os.getpid())
    return seq
