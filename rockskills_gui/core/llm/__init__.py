"""Talking to an OpenAI-compatible chat-completions endpoint, for every feature that asks a model
(the dream passes, trigger evals): where and how to ask (``endpoint``), what can go wrong, as one
sentence with the API key masked (``errors``), when to try again (``retry``), and a request that
offers tools, read and parsed here with a size limit (``tool_calls``, ``tool_chat``).
"""
