"""Memory over git time: what an agent remembered at any commit, what changed, and why it shifted.

- ``git``: the one adapter over git (gitpython): ``find_repo(path)``, ``Git``, ``Commit``,
  ``FileChange``, ``HistoryError`` (a one-sentence user error).
- ``versions``: a file version cut at its ``## `` headings; frame diffs between versions.
- ``timeline``: ``history(world, agent)``, ``soul_at(world, agent, rev)``, ``world_at(world, rev)``
  (a read-only ``WorldAt`` snapshot), ``diff(world, agent, a, b)``, ``first_mention(world, term)``;
  ``timeline_for(world)`` shares one ``Timeline`` (and its caches) per world.
- ``why``: ``explain(world, agent, frame=..., index=...)``: why the agent holds a statement.
- ``render`` (Rich) and ``export`` (JSON) serve the CLI and the dashboard.
"""
