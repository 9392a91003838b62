"""What tests share, one module a kind; the fixtures stay in the ``conftest.py`` files.

- ``paths``: ``ROOT`` (the checkout) and the shared corpus (``corpus_dir``, skipped where absent).
- ``cli``: the command line, run in this process (``soulscope``) or in a child process
  (``soulscope_process``, for tests of the process itself), and ``one_sentence`` for its errors.
- ``worlds``: small worlds written by hand (``ADA``, ``BO``, ``CY``, ``write_world``).
- ``simworld``: worlds made by ``soulscope init`` and ``register`` (``make_world``), and the frame
  runner in a child process with faults injected (``frame_process``).
- ``bigworld``: generated souls and worlds at the sizes real ones reach.
- ``repos``: real git repositories and histories (``git``, ``init``, ``commit``, ``history_world``).
- ``openai_server``, ``embedding_server``: loopback servers that play an OpenAI-compatible LLM
  and embeddings endpoint, failing on request (``words``: vectors without a model).
- ``models``: what distilling the static model touched (``Distilled``).
- ``pilot``: driving the dashboard (``settle``) and reading its tables as shown.

``bench/`` imports some of these too.
"""
