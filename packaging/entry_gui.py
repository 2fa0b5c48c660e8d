"""PyInstaller entry point for ``rockskills-gui`` (the desktop app)."""

from rockskills_gui.ui.shell.launch import run

if __name__ == "__main__":
    run()
