"""Value classes without the dataclasses module, for what the git-aware commands load.

`import dataclasses` loads inspect (and with it ast, dis, tokenize, enum, re): about 10 ms of
start-up, more than `canon check` spends judging a 50-file change, and paid by every pre-commit
run. A subclass names its fields in `__slots__` and takes them in its `__init__` in that order,
under the same names; it gets equality, repr, `replace(**changes)` and pickling (lint's forked
workers send findings back) over those fields, as @dataclass would give. A `Frozen` one is
hashable and refuses assignment after `__init__` (which sets fields with `_init`).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any


class Record:
    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record) or type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return type(self), self._values()

    def replace(self, **changes: Any) -> Any:
        """A copy with `changes` applied (the fields' names as keywords of `__init__`)."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        return type(self)(**{name: changes.get(name, getattr(self, name)) for name in self.__slots__})


class Frozen(Record):
    __slots__ = ()

    def _init(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name}")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())
