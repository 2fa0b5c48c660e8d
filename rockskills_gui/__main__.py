"""``python -m rockskills_gui`` runs the headless CLI (as the ``rockskills`` command does)."""

from rockskills_gui.cli import run

run()
