"""The Yard slots pane."""
