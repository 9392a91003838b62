"""Retrieval over soul files: chunks that cite their frame, BM25, MiniLM embeddings and their fusion.

``chunks`` cuts a soul into frame-sized pieces, ``lexical`` ranks them with BM25, ``semantic`` embeds
them (the model and torch are imported only when an encoder is built), ``hybrid`` fuses the two.
"""
