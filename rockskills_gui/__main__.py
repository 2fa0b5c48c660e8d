"""``python -m rockskills_gui`` runs the headless CLI."""

import sys

from rockskills_gui.cli import main

sys.exit(main())
