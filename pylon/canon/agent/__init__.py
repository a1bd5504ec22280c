"""What canon answers an agent's session: `canon hook`, `canon surface` and `canon settle`, the session's state,
the paths a tool call touches."""
