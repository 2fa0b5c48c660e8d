"""PyInstaller entry point for ``rockskills`` (the headless command line)."""

import sys

from rockskills_gui.cli import main

if __name__ == "__main__":
    sys.exit(main())
