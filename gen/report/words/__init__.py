"""The report's words: analysis facts -> the sentences a reader sees, in one package, a module per page kind.

common (numbers, labels, reasons, `refusal`), methodology (the rules stated once), findings, kernels (names,
occupancy, counters), tables (a set's table notes and conditions), host (host speed), verdicts, as_run and why
(the verdict's lines; as_run its clocks and power), decision (the first screen), home (what the home and a set's
page show after their first chart and table), lessons (the article's lessons), scenarios and published (a
scenario's page, ours against published figures), dynamic (dynamic lengths, forward/backward), compare.
Plain text: pages escape it where they show it. Nothing here reads a set; every number comes from the facts given.
"""
