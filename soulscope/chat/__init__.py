"""Talking to memory: an OpenAI-compatible LLM client, cited chat sessions, FileRAG distillation.

``openai`` is imported only when a client is built, so reading souls never pays for it.
"""
