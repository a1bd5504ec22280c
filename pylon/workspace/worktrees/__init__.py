"""Owned worktrees (the registry, its proof) and the commands on them: new, path, list, rm, prune, move, apply,
sync, finish; copied ignored files; background watchers."""
