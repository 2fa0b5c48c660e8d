"""The SKILL.md family (Agent Skills, PicoBot, carpenter, CortexPrism): the library, its store,
scan and profiles."""
