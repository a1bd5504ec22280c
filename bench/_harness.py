"""Benchmark harness: time whole commands (medians of repeated runs) and record figures.

Every benchmark compares pylon with a named baseline measured in the same run, and writes its
section of docs/benchmarks.md between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` markers, so
several benchmark scripts can share that page without overwriting each other.
"""

from __future__ import annotations

import os
import platform
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_DOC = ROOT / "docs" / "benchmarks.md"
WORK = ROOT / "bench" / ".work"
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    """Path of an installed console script next to this interpreter (pylon, canon)."""
    path = BIN / name
    return str(path) if path.exists() else name


@dataclass
class Timing:
    label: str
    samples: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def ms(self) -> str:
        return f"{self.median * 1000:.1f} ms"


def time_command(
    label: str,
    argv: Sequence[str] | str,
    *,
    runs: int = 15,
    warmup: int = 2,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    shell: bool = False,
    setup: Sequence[str] | str | None = None,
    ok_codes: Sequence[int] = (0,),
    stdin_data: bytes | None = None,
) -> Timing:
    """Median wall time of a whole process; `setup` (untimed) runs before every sample."""
    full_env = dict(os.environ, **(env or {}))
    samples: list[float] = []
    for i in range(warmup + runs):
        if setup is not None:
            subprocess.run(
                setup,
                cwd=cwd,
                env=full_env,
                shell=isinstance(setup, str),
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        start = time.perf_counter()
        proc = subprocess.run(
            argv,
            cwd=cwd,
            env=full_env,
            shell=shell,
            input=stdin_data,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        elapsed = time.perf_counter() - start
        if proc.returncode not in ok_codes:
            raise RuntimeError(f"{label}: {argv!r} exited {proc.returncode}: {proc.stderr.decode()[-2000:]}")
        if i >= warmup:
            samples.append(elapsed)
    return Timing(label, samples)


def machine_line() -> str:
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {git}, "
        f"measured {time.strftime('%Y-%m-%d', time.gmtime())}"
    )


def table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def record(name: str, markdown: str) -> None:
    """Replace this benchmark's section of docs/benchmarks.md (create the page if needed)."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{markdown.strip()}\n\n_Machine: {machine_line()}._\n{end}"
    text = BENCH_DOC.read_text(encoding="utf-8") if BENCH_DOC.exists() else "# Benchmarks\n"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        text = before + block + after
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    BENCH_DOC.parent.mkdir(parents=True, exist_ok=True)
    BENCH_DOC.write_text(text, encoding="utf-8")
    print(f"recorded bench:{name} in {BENCH_DOC.relative_to(ROOT)}", file=sys.stderr)


def start_watch(
    pylon: str, repo: Path, *args: str, stdout: int = subprocess.DEVNULL, env: dict[str, str] | None = None
) -> subprocess.Popen:
    """`pylon ws watch` in `repo`, once it says it is ready. Its stderr goes to a file under WORK:
    a pipe nobody drains would block the watcher as soon as it fills. `env`: the environment of
    whoever reads its vouch (the same HOME and git configuration, or the vouch is not theirs)."""
    WORK.mkdir(parents=True, exist_ok=True)
    log = WORK / f"watch-{os.getpid()}-{time.monotonic_ns()}.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([pylon, "ws", "watch", *args], cwd=repo, stdout=stdout, stderr=err, env=env)
    deadline = time.monotonic() + 120
    while b"watching" not in log.read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"watch did not start: {log.read_text()}")
        time.sleep(0.05)
    return proc


def stop_watch(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)


def verdict(ok: bool) -> str:
    return "meets the bar" if ok else "MISSES the bar"
