"""A world's run over time: the world at any point, the log of every frame, how it changed.

- ``log``: every frame of every agent as one stream, ordered by the frames' own times
  (``soul.when``), each with the commit that brought it where the world is in git.
- ``asof``: a world as it stood at a revision, a date or a frame (``history.timeline.world_at``
  underneath, or the frames up to that time where there is no git).
- ``graphdiff``: how the influence graph changed between two points.
- ``trends``: per period, how many agents have used a term.

The package sits above ``history/`` (it reads the world's past through it) and below the faces.
"""
