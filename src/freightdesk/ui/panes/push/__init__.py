"""The Carrier push console pane."""
