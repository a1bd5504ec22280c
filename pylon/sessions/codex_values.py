"""The values inside Codex's rollout lines (codex.py reads the lines): token usage objects, in
Codex's names or other providers', and a tool call's output: its text and whether it says the
call failed.
"""

from __future__ import annotations


def usage(raw: object) -> list[int] | None:
    """[input, cached, output, reasoning, total, cache writes] of a token usage object (the older
    and other providers' names where Codex's own are missing)."""
    if not isinstance(raw, dict):
        return None
    get = raw.get
    values = [
        get("input_tokens"),
        get("cached_input_tokens"),
        get("output_tokens"),
        get("reasoning_output_tokens"),
        get("total_tokens"),
        get("cache_write_input_tokens"),
    ]
    for i, others in (
        (0, ("prompt_tokens",)),
        (1, ("cache_read_input_tokens", "cached_tokens")),
        (2, ("completion_tokens",)),
        (3, ("reasoning_tokens",)),
        (5, ("cache_creation_input_tokens",)),
    ):
        if values[i] is None:
            values[i] = next((get(k) for k in others if get(k) is not None), 0)
    return [v if type(v) is int and v > 0 else 0 for v in values]


def failed_output(output: object, text: str) -> bool:
    """Whether a tool output says its call failed, for Codex versions without end events."""
    if isinstance(output, dict) and output.get("success") is False:
        return True
    for marker in ("Process exited with code ", "Exit code: "):
        at = text.find(marker)
        if 0 <= at < 400:  # the header Codex puts before the command's output
            digits = (
                text[at + len(marker) : at + len(marker) + 6].split()[0].rstrip(".,")
                if text[at + len(marker) :].strip()
                else ""
            )
            return digits.lstrip("-").isdigit() and int(digits) != 0
    if text.startswith("{") and '"exit_code"' in text[:200]:
        code = text.split('"exit_code"', 1)[1].lstrip(" :").split(",", 1)[0].split("}", 1)[0].strip()
        return code.lstrip("-").isdigit() and int(code) != 0
    return False


def string(value: object) -> str:
    """A string value, or "" for anything else."""
    return value if isinstance(value, str) else ""


def output_text(output: object, text: str) -> str:
    """A tool output's own text: its `content` when it is an object that has one, else `text`."""
    if isinstance(output, dict) and isinstance(output.get("content"), str):
        return str(output["content"])
    return text


def compact(value: object) -> str:
    """A value as text: a string as it is, anything else as compact JSON."""
    from pylon.sessions.jsonl import compact as as_json

    return value if isinstance(value, str) else as_json(value)
