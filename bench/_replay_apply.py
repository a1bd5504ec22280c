"""How bench/edits_replay.py applies one request: through the library, or through the installed
`pylon read` / `pylon edit` commands (separate processes sharing one ledger, as an agent runs them).

Both first send the request WITHOUT `--allow-echo --allow-indent-mix`: a suspicious-edit refusal
of a real change is a false positive of those heuristics and is counted, then the request is sent
again with the overrides so the exactness check still covers it. A refusal that printed unseen
lines (lines over 4096 characters are cut by read) is retried once, as an agent would.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Outcome:
    flagged: str | None = None  # the suspicious-edit message, when the heuristics refused the request
    unseen_retry: bool = False
    refused: tuple[str, str] | None = None  # (code, message) of a final refusal: nothing written


def apply_library(path: Path, request: bytes) -> Outcome:
    from pylon.errors import PylonError
    from pylon.workspace.edits.editing import edit
    from pylon.workspace.edits.reading import read

    offset, tag = 1, ""
    while True:
        res = read(str(path), offset, None)
        tag = res.tag
        if res.next_offset is None:
            break
        offset = res.next_offset
    out = Outcome()
    for allow in (False, True):
        for _attempt in range(2):
            try:
                edit(str(path), tag, request, allow_echo=allow, allow_indent_mix=allow)
                return out
            except PylonError as exc:
                codes = {p.get("code") for p in (exc.details or {}).get("problems", [])} | {exc.code}
                if "unseen-lines" in codes and _attempt == 0:
                    out.unseen_retry = True
                    continue
                if exc.code == "suspicious-edit" and not allow:
                    out.flagged = exc.message.splitlines()[0][:200]
                    break
                out.refused = (exc.code, exc.message[:200])
                return out
    return out


def apply_cli(pylon: str, folder: Path, request: bytes) -> Outcome:
    """`pylon read f --json` window by window, then `pylon edit f#TAG` with the request on stdin."""
    offset, tag = 1, ""
    while True:
        res = subprocess.run(
            [pylon, "read", "file", "--offset", str(offset), "--json"], cwd=folder, capture_output=True, text=True
        )
        doc = json.loads(res.stdout)
        if not doc.get("ok"):
            return Outcome(refused=(doc["error"]["code"], doc["error"]["message"][:200]))
        tag = doc["tag"]
        if doc["next_offset"] is None:
            break
        offset = doc["next_offset"]
    out = Outcome()
    for flags in ([], ["--allow-echo", "--allow-indent-mix"]):
        for _attempt in range(2):
            done = subprocess.run(
                [pylon, "edit", f"file#{tag}", "--json", *flags], cwd=folder, input=request, capture_output=True
            )
            if done.returncode == 0:
                return out
            err = json.loads(done.stdout)["error"]
            codes = {p.get("code") for p in err.get("problems", [])} | {err["code"]}
            if "unseen-lines" in codes and _attempt == 0:
                out.unseen_retry = True
                continue
            if done.returncode == 3 and not flags:
                out.flagged = err["message"].splitlines()[0][:200]
                break
            out.refused = (err["code"], err["message"][:200])
            return out
    return out
