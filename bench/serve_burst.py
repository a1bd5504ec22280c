"""A burst of simultaneous connections to the board: 200 clients connect at once and each asks
GET /api/meta; the wall time until the last answer. The board's server (listen backlog 1024)
against the same server with socketserver's default backlog of 5 (the baseline), in the same run
and process, alternating. With a backlog of 5 the kernel drops the SYNs that do not fit, and
their clients retry only after 1 s, 3 s, 7 s...

    python bench/serve_burst.py [--clients 200] [--runs 5]
"""

from __future__ import annotations

import argparse
import http.client
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Timing, record, table


def burst(port: int, key: str, clients: int) -> tuple[float, int]:
    """(seconds until the last client has its answer or its error, how many got an error)."""
    barrier = threading.Barrier(clients + 1)
    failures: list[str] = []

    def one() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        barrier.wait()
        try:
            conn.request("GET", "/api/meta", headers={"X-Pylon-Token": key})
            res = conn.getresponse()
            res.read()
            if res.status != 200:
                failures.append(str(res.status))
        except OSError as exc:
            failures.append(type(exc).__name__)
        finally:
            conn.close()

    threads = [threading.Thread(target=one) for _ in range(clients)]
    for t in threads:
        t.start()
    start = time.perf_counter()
    barrier.wait()
    for t in threads:
        t.join()
    if failures:
        print(f"{len(failures)} of {clients} failed: {sorted(set(failures))}", file=sys.stderr)
    return time.perf_counter() - start, len(failures)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    ns = parser.parse_args()
    from pylon.serve.app import BACKLOG, BoardServer
    from pylon.serve.data import Board

    class Baseline(BoardServer):
        request_queue_size = 5  # socketserver.TCPServer's default

    repo = Path(tempfile.mkdtemp(prefix="pylon-burst-")) / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    servers = {name: cls(0, Board(str(repo))) for name, cls in (("board", BoardServer), ("baseline", Baseline))}
    for server in servers.values():
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    samples: dict[str, list[float]] = {name: [] for name in servers}
    failed: dict[str, list[int]] = {name: [] for name in servers}
    try:
        for server in servers.values():  # warm-up: threads, imports, the page cache
            burst(server.server_address[1], server.gate.key, 20)
        for _ in range(ns.runs):
            for name, server in servers.items():
                took, errors = burst(server.server_address[1], server.gate.key, ns.clients)
                samples[name].append(took)
                failed[name].append(errors)
                print(name, f"{took:.3f} s, {errors} failed", file=sys.stderr, flush=True)
    finally:
        for server in servers.values():
            server.shutdown()
            server.server_close()
    board, base = Timing("board", samples["board"]), Timing("baseline", samples["baseline"])
    somaxconn = (
        Path("/proc/sys/net/core/somaxconn").read_text().strip()
        if os.path.exists("/proc/sys/net/core/somaxconn")
        else "?"
    )
    rows = [
        (
            "backlog 5 (socketserver's default; baseline)",
            base.ms,
            ", ".join(f"{s:.2f}" for s in base.samples),
            ", ".join(map(str, failed["baseline"])),
            "1.00x",
        ),
        (
            f"backlog {BACKLOG} (the board)",
            board.ms,
            ", ".join(f"{s:.2f}" for s in board.samples),
            ", ".join(map(str, failed["board"])),
            f"{board.median / base.median:.2g}x",
        ),
    ]
    record(
        "serve-burst",
        "\n".join(
            [
                "## pylon serve: a burst of connections (`bench/serve_burst.py`)",
                "",
                (
                    f"{ns.clients} clients connect at once, each asks `GET /api/meta`; wall time until the last answer "
                    "or error "
                    f"(median of {ns.runs}, the two servers alternating "
                    f"in one process; net.core.somaxconn {somaxconn}). "
                    f"1-minute load average at the end: {os.getloadavg()[0]:.1f}."
                ),
                "",
                table(rows, ("listen backlog", "median", "runs (s)", "requests failed per run", "vs baseline")),
            ]
        ),
    )


if __name__ == "__main__":
    main()
