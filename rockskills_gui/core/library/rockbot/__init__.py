"""RockBot's JSON skill store: the library, its scan (helper processes included) and skill files."""
