"""One module per page (or family of pages): each builds its page's view model
from analysis (rows ready to lay out: numbers, flags and words) and renders
its template. Templates hold loops, conditions and formatting filters only.

Each module gives `build(ctx) -> Iterator[Page]` (its pages over all sets, from each
set's facts; gen.report.render lists them in navigation order) and, where a set has
pages of its own, `set_pages(ctx, ls)` and `facts(ctx, ls)` (gen.report.units makes
them once per set).
"""
