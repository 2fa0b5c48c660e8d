"""The Usage pane: tables, heatmap, signals."""
