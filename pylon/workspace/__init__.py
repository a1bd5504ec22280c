"""workspace: the git library and the numbered-edit engine. Never imports typer/rich."""
