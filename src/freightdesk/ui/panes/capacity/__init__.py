"""The Carrier capacity pane."""
