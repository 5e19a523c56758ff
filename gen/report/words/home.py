"""What the home page and a set's page show after their first chart and table, in words ("Where a
reader cannot see the answer as a chart and table first"): the heading of the verdict in words, what to call in its
first sentences with the rest folded (and the fold's title), and the titles of the folds under the home's map and
headline chart.

The sentences are gen.report.words.decision's, as made: this module only says how many show and what the folds are
called. Nothing here reads a set.
"""

from __future__ import annotations

WHAT_TO_CALL = "What to call, and why"  # the heading over the decision in words, on the home and on a set's page

# What to call shows its first sentences: the call, and where it ranks first (or what the unpinned call picks)
SHOWN = 2

MAP_FOLD = "How to read the map"
CONDITIONS_FOLD = "The conditions of these times"


def head(sentences) -> str:
    """The sentences of what to call that show: the call and where it ranks first."""
    return " ".join(tuple(sentences)[:SHOWN])


def rest(sentences) -> str:
    """The sentences that fold under them (every workload it does not lead, and why); "" where there are none."""
    return " ".join(tuple(sentences)[SHOWN:])


def rest_title(sentences) -> str:
    """The fold's title: what it holds and how long it is."""
    n = len(tuple(sentences)[SHOWN:])
    return f"Where else it stands, workload by workload ({n} sentence{'s' if n != 1 else ''})"
