"""What each coding agent is doing in this repository and what it costs: Claude Code's and Codex's
own transcript files read into one shape per session (`pylon sessions`), and a token meter per
tool (`pylon tokens`). A library below the CLI: it returns data, never imports typer, rich or
pylon.cli, and reads the clients' files only (docs/reference/serve.md)."""
