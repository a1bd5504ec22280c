"""`pylon serve`: a local web board of the repository (agents, timeline, memory), docs/reference/serve.md.

A library: it calls pylon.workspace and pylon.canon for every answer (no rule of its own) and never
imports pylon.cli."""
