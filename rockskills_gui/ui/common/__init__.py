"""What every pane may use: the context, actions, theme, icons, workers, models."""
