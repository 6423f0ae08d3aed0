"""The Alerts inbox pane and how the inbox reaches the window (badge, desktop notes)."""
