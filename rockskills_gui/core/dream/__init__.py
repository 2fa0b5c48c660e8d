"""The dream engine: RockBot's skill dream passes, proposed, reviewed and applied safely (issue 6).

Modules (no Qt anywhere; everything returns plain data so a wizard can drive it):

- ``passes``      the three passes and RockBot's constants
- ``inputs``      what a dream reads: skills, usage, feedback, conversation log, ``now``
- ``prompts``     the user messages RockBot would send, byte for byte, and the 18-month prune
- ``directives``  the system messages: the library's directive files or our built-in texts
- ``llm``         an OpenAI-compatible client with retries, JSON-mode fallback, progress, cancel
- ``reply``       RockBot's tolerant reply parsing, validated with pydantic
- ``virtual``     an in-memory library and RockBot's apply rules (carry-forward, safety guard)
- ``plan``        typed proposals, evidence, dependencies, findings; JSON save/load
- ``proposals``   proposals from a parsed reply
- ``checks``      RockBot's rules and ours, as findings on proposals
- ``offline``     deterministic proposals from the library alone (no LLM)
- ``fingerprint`` what the library looked like when a plan was made
- ``journal``     crash-safe multi-file transactions under ``<agent>/.rockskills/journal/``
- ``apply``       apply an accepted subset as one transaction; undo it
- ``run``         the whole run: passes in RockBot's order, each built on the previous one
- ``keys``        the API key from the OS keyring or the environment (never a file)
"""
