"""The price table: US dollars per million tokens, offline, overridable.

The built-in rates are the providers' published list prices (Anthropic: docs.anthropic.com, "Pricing";
OpenAI: platform.openai.com/docs/pricing), as of the pylon release that ships them. A model the
table does not know has no cost (None), never a guess. `$PYLON_PRICES` (a file), else
`$XDG_CONFIG_HOME/pylon/prices.toml` (`~/.config/pylon/prices.toml`), adds or replaces models:

    [models."claude-sonnet-4-5"]
    input = 3.0            # uncached input
    output = 15.0          # output (thinking and reasoning included)
    cache_read = 0.30      # default: 0.1 x input
    cache_write = 3.75     # 5-minute cache writes; default: 1.25 x input
    cache_write_1h = 6.0   # 1-hour cache writes; default: 2 x input
    long_above = 200000    # a request whose input passes this many tokens is priced
    long = { input = 6.0, output = 22.5 }   # at these rates (the rest scaled alike)

A field left out keeps the built-in entry's value (for a new model, the default named). A bad
file is `bad-prices` (exit 2), naming the file and the entry.
"""

from __future__ import annotations

import os

from pylon.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FIELDS = ("input", "output", "cache_read", "cache_write", "cache_write_1h")
# model: (input, output, cache_read or None, long_above or None, long input, long output)
_SONNET_LONG = (200_000, 6.0, 22.5)
BUILTIN: dict[str, tuple[float, float, float | None, tuple[int, float, float] | None]] = {
    # Anthropic (cache reads 0.1x input, 5-minute writes 1.25x, 1-hour writes 2x)
    "claude-opus-4-7": (5.0, 25.0, None, None),
    "claude-opus-4-6": (5.0, 25.0, None, None),
    "claude-opus-4-5": (5.0, 25.0, None, None),
    "claude-opus-4-1": (15.0, 75.0, None, None),
    "claude-opus-4": (15.0, 75.0, None, None),
    "claude-sonnet-4-6": (3.0, 15.0, None, _SONNET_LONG),
    "claude-sonnet-4-5": (3.0, 15.0, None, _SONNET_LONG),
    "claude-sonnet-4": (3.0, 15.0, None, _SONNET_LONG),
    "claude-3-7-sonnet": (3.0, 15.0, None, None),
    "claude-3-5-sonnet": (3.0, 15.0, None, None),
    "claude-haiku-4-5": (1.0, 5.0, None, None),
    "claude-3-5-haiku": (0.8, 4.0, None, None),
    "claude-3-opus": (15.0, 75.0, None, None),
    "claude-3-haiku": (0.25, 1.25, None, None),
    # OpenAI (cached input as listed; reasoning is billed as output)
    "gpt-5.2-codex": (1.75, 14.0, 0.175, None),
    "gpt-5.2": (1.75, 14.0, 0.175, None),
    "gpt-5.1-codex-mini": (0.25, 2.0, 0.025, None),
    "gpt-5.1-codex-max": (1.25, 10.0, 0.125, None),
    "gpt-5.1-codex": (1.25, 10.0, 0.125, None),
    "gpt-5.1": (1.25, 10.0, 0.125, None),
    "gpt-5-codex": (1.25, 10.0, 0.125, None),
    "gpt-5-pro": (15.0, 120.0, None, None),
    "gpt-5-mini": (0.25, 2.0, 0.025, None),
    "gpt-5-nano": (0.05, 0.40, 0.005, None),
    "gpt-5": (1.25, 10.0, 0.125, None),
    "codex-mini-latest": (1.5, 6.0, 0.375, None),
    "o4-mini": (1.10, 4.40, 0.275, None),
    "o3": (2.0, 8.0, 0.5, None),
    "gpt-4.1-mini": (0.40, 1.60, 0.10, None),
    "gpt-4.1": (2.0, 8.0, 0.5, None),
}


class Rates:
    __slots__ = ("input", "output", "cache_read", "cache_write", "cache_write_1h", "long_above", "long")

    def __init__(self, values: dict[str, float], long_above: int | None = None, long: Rates | None = None) -> None:
        self.input, self.output = values["input"], values["output"]
        self.cache_read = values.get("cache_read", self.input * 0.1)
        self.cache_write = values.get("cache_write", self.input * 1.25)
        self.cache_write_1h = values.get("cache_write_1h", self.input * 2)
        self.long_above, self.long = long_above, long

    def at(self, prompt: int) -> Rates:
        """The rates of a request whose input (all of it, cached or not) is `prompt` tokens."""
        return self.long if self.long is not None and self.long_above is not None and prompt > self.long_above else self


def _builtin() -> dict[str, Rates]:
    table = {}
    for model, (given, out, cached, long) in BUILTIN.items():
        values = {"input": given, "output": out, **({"cache_read": cached} if cached is not None else {})}
        longer = None
        if long is not None:
            scale = long[1] / given
            longer = Rates(
                {
                    "input": long[1],
                    "output": long[2],
                    "cache_read": values.get("cache_read", given * 0.1) * scale,
                    "cache_write": given * 1.25 * scale,
                    "cache_write_1h": given * 2 * scale,
                }
            )
        table[model] = Rates(values, long[0] if long else None, longer)
    return table


def override_file() -> str:
    given = os.environ.get("PYLON_PRICES")
    if given:
        return os.path.abspath(os.path.expanduser(given))
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(config, "pylon", "prices.toml")


def table() -> dict[str, Rates]:
    """The built-in table with the user's file over it."""
    rates = _builtin()
    path = override_file()
    try:
        with open(path, "rb") as fh:
            data = fh.read(1024 * 1024 + 1)
    except FileNotFoundError:
        if os.environ.get("PYLON_PRICES"):
            raise _bad(path, "it does not exist") from None
        return rates
    except OSError as exc:
        raise _bad(path, f"it cannot be read ({exc.strerror})") from None
    import tomllib

    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise _bad(path, f"it is not valid TOML ({exc})") from None
    models = parsed.get("models", {})
    if not isinstance(models, dict):
        raise _bad(path, "`models` is not a table")
    for model, entry in models.items():
        rates[model.lower()] = _entry(path, model, entry, rates.get(model.lower()))
    return rates


def _entry(path: str, model: str, entry: object, base: Rates | None) -> Rates:
    if not isinstance(entry, dict):
        raise _bad(path, f"models.{model} is not a table")
    values = {f: getattr(base, f) for f in FIELDS} if base is not None else {}
    for key, value in entry.items():
        if key in FIELDS:
            values[key] = _number(path, model, key, value)
        elif key not in ("long_above", "long"):
            raise _bad(
                path, f"models.{model} has an unknown key {key!r} (known: {', '.join(FIELDS)}, long_above, long)"
            )
    if "input" not in values or "output" not in values:
        raise _bad(path, f"models.{model} needs both `input` and `output`")
    above = entry.get("long_above", base.long_above if base is not None else None)
    long = base.long if base is not None else None
    if "long" in entry:
        if not isinstance(entry["long"], dict):
            raise _bad(path, f"models.{model}.long is not a table")
        long = _entry(path, f"{model}.long", entry["long"], long)
    if above is not None and (not isinstance(above, int) or isinstance(above, bool) or above < 0):
        raise _bad(path, f"models.{model}.long_above is not a whole number of tokens")
    return Rates(values, above, long)


def _number(path: str, model: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise _bad(path, f"models.{model}.{key} is not a price (a number of dollars per million tokens, 0 or more)")
    return float(value)


def _bad(path: str, why: str) -> UsageError:
    return UsageError(
        "bad-prices",
        f"The price table {path} cannot be used: {why}.",
        f"Fix or remove {path} (docs/reference/serve.md, Prices, shows its form).",
    )


def find(rates: dict[str, Rates], model: str) -> Rates | None:
    """The rates of a model as a client names it: exactly, or after dropping a provider prefix,
    a date or version suffix (`-20250929`, `@20250929`, `-v1:0`, `[1m]`), or by the longest
    known name it starts with (`gpt-5.1-codex-max-x` is a `gpt-5.1-codex-max`)."""
    name = model.strip().lower()
    if not name:
        return None
    name = name.rsplit("/", 1)[-1].removeprefix("anthropic.").removeprefix("us.anthropic.")
    name = name.split("@", 1)[0].split("[", 1)[0]
    if name.endswith(":0") and "-v" in name:
        name = name.rsplit("-v", 1)[0]
    if name in rates:
        return rates[name]
    stem, _, tail = name.rpartition("-")
    if stem and len(tail) == 8 and tail.isdigit() and stem in rates:
        return rates[stem]
    best = max((k for k in rates if name.startswith(k + "-")), key=len, default=None)
    return rates[best] if best is not None else None
