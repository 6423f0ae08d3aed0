"""The Account groups pane."""
