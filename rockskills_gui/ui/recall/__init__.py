"""The Recall pane: playground, sessions, query sets, compare."""
