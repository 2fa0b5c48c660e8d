"""rockskills_gui: a desktop workbench (and CLI) for curating an AI agent's skill library."""

__version__ = "0.1.0"
