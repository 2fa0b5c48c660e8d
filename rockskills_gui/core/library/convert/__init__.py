"""Converting a library into another format (RockBot JSON, SKILL.md profiles), with a loss report."""
