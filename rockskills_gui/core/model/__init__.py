"""What a skill is: names, the skill record, timestamps, RockBot's JSON writer, SKILL.md frontmatter,
problems.
"""
