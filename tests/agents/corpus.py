"""The hook payload corpus (tests/agents/payloads/): documented shapes, filled in for one test."""

from __future__ import annotations

import json
from pathlib import Path

PAYLOADS = Path(__file__).resolve().parent / "payloads"


def payload_text(name: str, cwd: Path | str, session: str = "0b6a3f1e-5c2d-4e8f-9a1b-2c3d4e5f6a7b") -> str:
    """The payload `name` (file stem) as the agent would send it from `cwd`, as JSON text."""
    raw = json.loads((PAYLOADS / f"{name}.json").read_text(encoding="utf-8"))

    def fill(value: object) -> object:
        if isinstance(value, str):
            return value.replace("{cwd}", str(cwd)).replace("{session}", session)
        if isinstance(value, list):
            return [fill(v) for v in value]
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        return value

    return json.dumps(fill(raw))


def names(prefix: str = "") -> list[str]:
    return sorted(p.stem for p in PAYLOADS.glob(f"{prefix}*.json"))
