"""What the agent would recall: RockBot's BM25, the index, sessions, the playground, query sets and
comparisons.
"""
