"""Numbered edits: `read` prints lines with a revision tag, `edit` applies whole-line operations.

The engine works on the file's exact bytes; see docs/explanation/edits.md for the protocol. The package
exports nothing: callers import what they use from its modules (`reading.read`,
`editing.edit`, ...), so `pylon read` loads only the modules a read needs.
"""
