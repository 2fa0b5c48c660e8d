"""The application shell: app entry, main window, palette, preferences, dialogs shared by panes."""
