"""The Rail pane."""
