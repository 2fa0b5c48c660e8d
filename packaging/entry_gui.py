"""PyInstaller entry point for ``rockskills-gui`` (the desktop app)."""

import sys

from rockskills_gui.ui.shell.app import main

if __name__ == "__main__":
    sys.exit(main())
