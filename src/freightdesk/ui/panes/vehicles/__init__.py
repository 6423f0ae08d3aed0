"""The Available vehicles pane."""
