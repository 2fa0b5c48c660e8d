"""Converting a library into another format (RockBot JSON, SKILL.md profiles), with a loss report.

The package's public face is here (:func:`convert`, :class:`ConvertError`, :data:`TARGETS`):
code outside ``core/library`` imports this, never the modules below (pyproject's import
contracts)."""

from rockskills_gui.core.library.convert.run import TARGETS as TARGETS
from rockskills_gui.core.library.convert.run import ConvertError as ConvertError
from rockskills_gui.core.library.convert.run import ConvertResult as ConvertResult
from rockskills_gui.core.library.convert.run import convert as convert
