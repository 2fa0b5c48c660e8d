"""One library contract over every format: the RockBot and SKILL.md-family libraries, their stores,
detection, conversion, the name tree.
"""
