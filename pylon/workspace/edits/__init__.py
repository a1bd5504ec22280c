"""Numbered edits: `read` prints lines with a revision tag, `edit` applies whole-line operations.

The engine works on the file's exact bytes; see docs/edits.md for the protocol. Exports are
loaded on first use so `pylon read` does not pay for the edit modules.
"""

_EXPORTS = {
    "read": "reading", "ReadResult": "reading",
    "edit": "editing", "EditResult": "editing", "split_target": "editing",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        from importlib import import_module

        return getattr(import_module(f"pylon.workspace.edits.{_EXPORTS[name]}"), name)
    raise AttributeError(name)
