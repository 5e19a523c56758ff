"""attention-profile-report: profile every way PyTorch computes attention.

Pipeline: variants -> capture (GPU, torch) -> results/ -> analysis (pandas)
-> render (Jinja + Altair) -> mkdocs site. Only gen.capture and
gen.attention import torch.
"""

__version__ = "0.1.0"
