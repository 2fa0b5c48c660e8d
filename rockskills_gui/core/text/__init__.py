"""Pure text utilities: fuzzy matching, three-way merge, Markdown rendering, secret redaction."""
