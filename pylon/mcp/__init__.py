"""`pylon mcp`: the MCP server (tools generated from the command registry, calls run through the CLI)."""
