"""Report: facts -> words, charts, Markdown pages; the build into docs/generated/."""
