"""Three-way merges by `git merge-tree --write-tree` and their conflict markers, shared by ops/ (undo, redo) and
worktrees/ (apply, sync, conflicts)."""
