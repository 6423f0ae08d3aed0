"""The Sailing schedules pane."""
