"""The commands that read the whole store to show it: `canon map`, `canon search`, `canon status`, `canon graph`."""
