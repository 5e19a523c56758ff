"""One module per page (or family of pages): each builds its page's view model
from analysis (rows ready to lay out: numbers, flags and words) and renders
its template. Templates hold loops, conditions and formatting filters only.

Each module gives `build(ctx) -> Iterator[Page]`; gen.report.render lists them
in navigation order.
"""
