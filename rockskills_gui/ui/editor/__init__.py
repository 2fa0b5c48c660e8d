"""The editor pane: header, source editor, preview, conflicts."""
