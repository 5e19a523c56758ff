"""Where the scenario pages lie, and where a link to a scenario leads: its page over every set where two
sets' rows or more fill it, else the one set's own page of it (issue 33: a page of one row says no more
than the set's page, which it would only link).

Takes: scenario names and the sets a page over every set would give a row. Gives: `INDEX`,
`scenario_page(name)`, `MIN_SETS` and `over_sets(rows, page, own_page)`.
"""

from __future__ import annotations

from gen.report import format as fmt

INDEX = f"{fmt.GENERATED}/scenarios/index.md"
# A page over every set of a scenario is made where it holds at least this many sets' rows.
MIN_SETS = 2


def scenario_page(name: str) -> str:
    """The page of a scenario over every set."""
    return f"{fmt.GENERATED}/scenarios/{fmt.slug(name)}.md"


def over_sets(rows: list, page: str, own_page) -> str | None:
    """Where a link to a scenario leads, given the sets its page over every set would show a row of (`rows`, in
    order): that page where they are MIN_SETS or more, else the first set's own page of it (`own_page(set)`),
    None where no set ran it."""
    if len(rows) >= MIN_SETS:
        return page
    return own_page(rows[0]) if rows else None
