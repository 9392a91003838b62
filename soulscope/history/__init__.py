"""Memory over git time: what an agent remembered at any commit, what changed, and why it shifted.

- ``git``: the one adapter over git (gitpython): ``find_repo(path)``, ``Git``, ``Commit``,
  ``FileChange``, ``HistoryError`` (a one-sentence user error).
- ``versions``: a file version cut at its ``## `` headings; frame diffs between versions.
- ``timeline``: ``history(world, agent)``, ``soul_at(world, agent, rev)``, ``world_at(world, rev)``
  (a read-only ``WorldAt`` snapshot), ``diff(world, agent, a, b)``, ``first_mention(world, term)``;
  ``timeline_for(world)`` shares one ``Timeline`` (and its caches) per world.
- ``why``: ``explain(world, agent, frame=..., index=...)``: why the agent holds a statement.
- ``names``: ``AgentNames`` (how a world's agents are written: ids in any case, short ids,
  display names, resolved to the world's agents).
- ``links``: ``read``, the one reader of the lines that connect two agents, each a typed link
  (credit, reply, comment, relationship, mention, vote) citing its line.
- ``spread``: ``spread(world, term)``: every agent that used a term in order of first use, the
  earlier adopters each names, the adoption curve (``spread_dict`` for JSON).
- ``graph``: ``influence(world, since, until)``: who shapes whom, with networkx's measures
  (``graph_dict``, its JSON text written directly by ``graph_json``, ``write_graphml``).
- ``render`` (Rich) and ``export`` (JSON) serve the CLI and the dashboard.
"""
