"""attention-profile-report: profile every way PyTorch computes attention.

Pipeline, one package per stage: gen.model (the results contract, standard
library only) -> gen.capture (GPU, the only package that imports torch) ->
results/ -> gen.analysis (pandas, numbers) -> gen.report (words, charts, pages)
-> mkdocs site. gen.cli is the thin command line over them.
"""

__version__ = "0.1.0"
