"""Retrieval over soul files: chunks that cite their frame, BM25, MiniLM embeddings and their fusion.

``chunks`` cuts a soul into frame-sized pieces and their bullets, ``lexical`` ranks bullets with
stemmed BM25, ``semantic`` embeds them (the model and torch are imported only when an encoder is
built) and caches the vectors, ``static`` is a static model distilled from MiniLM that embeds a
world in seconds, ``endpoint`` embeds through an OpenAI-compatible server instead, ``catchup``
makes the vectors in the background, stage by stage (in a thread of ``background``, stopped
between batches when what started it ends), ``hybrid`` fuses the two lists by score, and
``temporal`` reads time in a question.
"""
