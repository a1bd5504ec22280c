"""The destructive-command classifier: shell text in, a verdict with reasons out.

It knows nothing of git or of pylon's workspace: the caller says where the checkout is (a folder)
and the classifier reads the command the way the shell will (tree-sitter-bash), then judges each
command by what it would destroy. Snapshots are workspace operations
(pylon/workspace/ops/guard_snapshot.py). See docs/explanation/guard.md.
"""
