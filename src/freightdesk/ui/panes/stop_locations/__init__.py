"""The Stop locations pane: the list with search and paging, and the location form."""
