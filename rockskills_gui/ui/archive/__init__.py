"""The skill archive pane: what a dream archived, previewed and restored (issue 32)."""
