"""Talking to an OpenAI-compatible chat-completions endpoint, for every feature that asks a model
(the dream passes, trigger evals): where and how to ask (``endpoint``), what can go wrong, as one
sentence with the API key masked and the server's text cut short (``errors``), when to try again
(``retry``), a response body read with a size limit (``body``), and a request that offers tools,
read and parsed here (``tool_calls``, ``tool_chat``).
"""
