"""The op log and what writes a checkout back: undo, redo, restore and its steps, op states by name, guard
snapshots, `ws log`/`ws gc`; never imports worktrees/."""
