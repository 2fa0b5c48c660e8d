"""The Library pane: the skill tree, its model and dialogs, and the Problems dock."""
