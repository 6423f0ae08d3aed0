"""The Documents pane: search, preview, edit, upload by drag and drop, drag out."""
