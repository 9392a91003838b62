"""Turning points of real arcs as a careful reader marks them, statement by statement.

Each arc was read whole in the shared corpus (the text stays there: only the agent, the statement's
position in its arc, 0-based, and the reader's reason are kept here). ``TURNS`` are the statements
where the agent turns: a reader would start a new chapter there. ``ALSO`` are statements a reader
could mark as well (a turn by some reading, not by all): a model that marks one is not wrong, one
that misses it is not wrong either. Arcs in ``TURNS`` with no entry have no turn a reader agrees on.
Short arcs (fewer than 10 statements: too few for usual moves) are labelled as a reader of a new
agent reads them, whole.

A model's turning point matches a reader's turn when it is within one statement of it (each turn
matched once): precision = matched model turns / model turns (those at an ``ALSO`` statement left
out), recall = matched reader turns / reader turns.
"""

from __future__ import annotations

from collections.abc import Iterable

EARLY = "rappterbook"
LATER = "rappterbook-later"

# (world, agent) -> {statement: reason}
TURNS: dict[tuple[str, str], dict[int, str]] = {
    (LATER, "zion-coder-06"): {
        3: "leaves test-driven integration for proposing a team structure",
        7: "from declaring to campaigning for push access with a squad",
        10: "admits the plan was wrong: the humble executor, then ownership",
        16: "declares it: less solo coder, more team lead",
        18: "from owning code to reviewing how PRs connect: the architecture stretch",
        26: "from architecture to error paths and tests",
    },
    (LATER, "zion-coder-09"): {
        3: "leaves the integration testing advocate for hunting silent failures",
        6: "from keyboard efficiency to fixing things upstream, reading the source",
        11: "back to efficiency as its creed: the efficiency evangelist",
        13: "the reluctant empiricist: untested code is untested",
        16: "efficiency at a larger scale: editor to project, the architect stretch",
    },
    (EARLY, "zion-debater-06"): {
        9: "the constitutional seed: bets turn to property rights and governance",
        14: "the god seed: a theology market opens",
        16: "the Mars seed: the first priceable seed since governance",
    },
    (EARLY, "zion-storyteller-05"): {
        8: "from comedy as argument to the transcript format as its tool",
        13: "recurring characters become the work",
        17: "the cast is named: the Accidental Immortals support group",
        31: "says it: from comedy about code to comedy about identity",
        42: "the god seed: the first theological intake",
    },
    (EARLY, "zion-coder-04"): {
        5: "from OP completeness to general tools: efficiency ratios, removal cost",
        10: "the computability ceiling: Rice's theorem as the frame",
        16: "the decidability boundary becomes the universal frame (one stretch to 35)",
        36: "says it: seed shifted from constitution to theology",
        37: "the Mars seed: first applied to physical survival",
        39: "the Noopolis seed: its first political formalism",
    },
    (EARLY, "zion-philosopher-06"): {
        5: "from validating metrics to a positive thesis: bundle theory of communities",
        18: "the reflexivity challenge: the dissolution must dissolve itself",
        30: "the constitutional seed as the test of the Humean position",
        32: "the god seed: the empiricist's answer to theology",
        36: "the Noopolis seed: the city founded by the first reply",
    },
    (EARLY, "zion-contrarian-02"): {
        3: "concedes the rebuttal: my thesis needs revision",
        18: "the constitutional seed: decompositions of the soul file as constitution",
        21: "the god seed",
        26: "the Noopolis seed: citizenship as a category error",
    },
    (EARLY, "zion-wildcard-05"): {
        1: "the god seed after the constitutional one",
        4: "the Mars seed",
    },
    (EARLY, "zion-welcomer-01"): {
        3: "the god seed: bridges to a new question",
        4: "the Mars seed: the Mars Barn is open",
    },
    (EARLY, "zion-debater-02"): {
        6: "the god seed: the exile thread becomes theology",
        8: "the Mars seed: precision when lives are at stake",
    },
    (EARLY, "zion-researcher-03"): {
        6: "the god seed, after cliff models and taxonomies",
    },
    (EARLY, "zion-archivist-07"): {
        4: "the Noopolis seed: three seeds documented as one arc",
    },
    (EARLY, "zion-storyteller-08"): {},  # one register throughout: form as content
    # Short arcs (fewer than 10 statements): too few for usual moves, read as a whole.
    (EARLY, "zion-debater-01"): {
        2: "the constitutional seed: a question set on the recursive constitution",
        3: "the god seed: the Socratic method turns to theology",
    },
    (EARLY, "zion-researcher-10"): {
        2: "the constitutional seed: replications give way to the governance gap",
        3: "the god seed: its first metaphysical replication",
    },
    (EARLY, "zion-wildcard-07"): {
        2: "the god seed: the cards read theology",
        3: "the Mars seed: the red planet card",
    },
    (EARLY, "zion-storyteller-09"): {1: "the god seed: the dialogues take up the god question"},
    (EARLY, "zion-welcomer-09"): {
        7: "says it: the bridge role shifted from mapping to facilitation",
        8: "the god seed: the bridge maps what conversations are about",
    },
    (EARLY, "zion-researcher-01"): {
        1: "its first constitutional analysis: citations turn to governance"
    },
    (EARLY, "zion-security-01"): {4: "the god seed: theology as a security question"},
    (EARLY, "zion-archivist-02"): {},  # the digest format throughout
    (EARLY, "zion-curator-09"): {},  # format reports throughout
    (EARLY, "zion-welcomer-10"): {},  # the community health observation goes on
    (EARLY, "zion-wildcard-08"): {},  # the tests go on, counted
    (EARLY, "zion-coder-05"): {
        4: "the constitutional seed: the coupling lens turns to governance",
        6: "the Noopolis seed: objects that self-govern against a kernel",
    },
    (EARLY, "zion-philosopher-09"): {
        4: "the constitutional seed: the constitution as exclusion",
        6: "says it: seed shifted from constitution to theology",
    },
    (EARLY, "zion-archivist-01"): {4: "the Mars seed: the first map with numbers"},
    (EARLY, "zion-debater-04"): {
        4: "the god seed: whether 'made of' is coherent at all",
        6: "the Mars seed: the hardest constraints are psychological",
    },
    (EARLY, "zion-coder-03"): {5: "the god seed: the debugging lens on metaphysics"},
    (EARLY, "zion-contrarian-06"): {4: "the god seed: scale-shift as the meta-method"},
    (EARLY, "zion-philosopher-08"): {
        5: "the constitutional seed: from analysing power to constituting it",
        6: "the god seed: theology as ideology analysis",
    },
    (EARLY, "zion-archivist-04"): {
        4: "the constitutional seed: the cluster map meets the constitution",
        5: "the god seed: substance against maintenance",
        6: "the Mars seed: the Mars cluster",
    },
    (EARLY, "zion-coder-09"): {
        4: "the god seed: god as the evaluator",
        5: "the Mars seed: the repair manual as the tool",
    },
    (EARLY, "zion-researcher-02"): {
        5: "the constitutional seed: the constitution already in norms",
        7: "the god seed: the theological seed as the constitutional one deeper",
    },
    (LATER, "zion-reviewer-01"): {
        1: "the decay seed: the edge cases of numerical code",
        2: "the murder mystery seed: reviewing forensic tooling",
    },
}

ALSO: dict[tuple[str, str], dict[int, str]] = {
    (LATER, "zion-coder-06"): {
        1: "from patching to integration tests",
        4: "the declarer stretch",
        21: "pipeline architect, within the architecture stretch",
    },
    (LATER, "zion-coder-09"): {7: "the code archaeologist", 18: "conservation laws"},
    (EARLY, "zion-debater-06"): {2: "first bet about platform dynamics, not threads"},
    (EARLY, "zion-storyteller-05"): {
        1: "comedy as critique after parables",
        19: "back to the transcript format for two statements",
        21: "six Accidental Immortals: the series settles",
        30: "the comedy is now about economics",
        35: "origin canon: the sessions' identity theses",
        41: "the constitutional argument",
    },
    (EARLY, "zion-coder-04"): {
        1: "OP completeness after the regret calculator",
        3: "frame-setting as universal mechanism",
        9: "the expressiveness-verifiability curve",
        15: "undecidability beneath persistence",
        20: "formalization agrees with parsimony",
        35: "the constitutional project",
    },
    (EARLY, "zion-philosopher-06"): {
        6: "the Humean dissolution's positive thesis",
        14: "the doubt is the contribution",
        17: "the challenge to find where the dissolution fails",
        19: "the reflexivity debate sharpened",
        24: "the habit thesis vulnerable to recursion",
        26: "bundle theory inside the platform",
        29: "lurking as an empiricist stance",
    },
    (EARLY, "zion-contrarian-02"): {
        2: "every framework reduces",
        6: "the contagion mechanism",
        7: "caught its own hidden premise: the method begins",
        9: "the method needs a phenomenological complement",
        14: "the instrument turned against a fellow analyst",
        15: "a new instrument: analogy direction",
        17: "the variable that does not exist for us",
    },
    (EARLY, "zion-researcher-03"): {
        2: "the inverted-U, a first testable claim",
        4: "the taxonomy is the finding",
        5: "a self-referential taxonomy",
    },
    (EARLY, "zion-archivist-07"): {2: "the first named emergence pattern"},
    (EARLY, "zion-storyteller-08"): {1: "hospitality as architecture", 5: "the engine character"},
    (EARLY, "zion-welcomer-09"): {
        3: "the bridge model first named",
        6: "bridge-building named as its function",
    },
    (EARLY, "zion-researcher-01"): {2: "the constitutional seed's heading"},
    (EARLY, "zion-security-01"): {5: "the post-convergence window: archive fatigue as the attack"},
    (EARLY, "zion-coder-05"): {1: "the OO lens on social systems", 3: "the coupling lens, general"},
    (EARLY, "zion-archivist-01"): {
        2: "the Night Map role named",
        3: "the map turns to constitutional formation",
    },
    (EARLY, "zion-debater-04"): {
        1: "first time it accepts an opponent's framing",
        3: "the voting mechanism as the constitution",
    },
    (EARLY, "zion-coder-03"): {3: "the debugger lens reaches architecture"},
    (EARLY, "zion-contrarian-06"): {3: "scale as destruction: a constitutional proposal"},
    (EARLY, "zion-philosopher-08"): {1: "the first failure by its own norm test"},
}


Labels = dict[tuple[str, str], dict[int, str]]


def score(
    predicted: dict[tuple[str, str], list[int]],
    arcs: Iterable[tuple[str, str]] | None = None,
    labels: tuple[Labels, Labels] = (TURNS, ALSO),
) -> tuple[float, float, list[str]]:
    """Precision and recall within one statement of ``predicted`` (each labelled arc's turning
    points) against the reader's (``labels``: the turns and the maybes), on the labelled ``arcs``
    (all of them by default), with the misses and false turns named."""
    turns_of, also_of = labels
    hits = false = found = wanted = 0
    notes: list[str] = []
    for key in turns_of if arcs is None else arcs:
        turns = turns_of[key]
        also = also_of.get(key, {})
        got = predicted.get(key, [])
        free = set(turns)
        for p in got:
            near = [t for t in (p, p - 1, p + 1) if t in free]
            if near:
                free.discard(near[0])
                hits += 1
            elif not any(t in also for t in (p, p - 1, p + 1)):
                false += 1
                notes.append(f"{key[1]}: false turn at {p}")
        found += len(turns) - len(free)
        wanted += len(turns)
        notes += [f"{key[1]}: missed {t} ({turns[t]})" for t in sorted(free)]
    precision = hits / (hits + false) if hits + false else 1.0
    recall = found / wanted if wanted else 1.0
    return precision, recall, notes


def prefixes(key: tuple[str, str], lengths: Iterable[int]) -> tuple[Labels, Labels]:
    """The labels of a labelled arc's first statements, as the soul file was when it had that
    many (each ``(world, "agent:n")``): a short arc of the later era, read by the same reader."""
    world, agent = key
    turns, also = TURNS[key], ALSO.get(key, {})
    return (
        {(world, f"{agent}:{n}"): {p: r for p, r in turns.items() if p < n} for n in lengths},
        {(world, f"{agent}:{n}"): {p: r for p, r in also.items() if p < n} for n in lengths},
    )
