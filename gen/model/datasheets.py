"""Datasheet figures: what a GPU's maker publishes as its memory bandwidth.

Takes: a GPU name as torch reports it (`Environment.gpu_name`). Gives:
`bandwidth(gpu_name) -> Datasheet | None` (None: a GPU not listed here, which
the report calls unknown rather than guessing). These are the maker's peak
figures, not measurements; the report puts them beside the copy bandwidth
measured on the same GPU (`Ceilings`), which is the ceiling it ranks against.
Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Datasheet:
    gpu: str  # the maker's product name
    hbm_tbps: float  # peak memory bandwidth, TB/s (10^12 bytes per second)
    source: str


# Keyed by torch.cuda.get_device_name(); only the SXM parts, whose names say so.
_BANDWIDTH = {
    "NVIDIA H200": Datasheet("NVIDIA H200 SXM (141 GB HBM3e)", 4.8,
                             "NVIDIA H200 Tensor Core GPU datasheet, 'GPU memory bandwidth' of the H200 SXM "
                             "(nvidia.com/en-us/data-center/h200/)"),
    "NVIDIA H100 80GB HBM3": Datasheet("NVIDIA H100 SXM5 (80 GB HBM3)", 3.35,
                                       "NVIDIA H100 Tensor Core GPU datasheet, 'GPU memory bandwidth' of the "
                                       "H100 SXM (nvidia.com/en-us/data-center/h100/)"),
    "NVIDIA A100-SXM4-80GB": Datasheet("NVIDIA A100 SXM4 (80 GB HBM2e)", 2.039,
                                       "NVIDIA A100 Tensor Core GPU datasheet, 'GPU memory bandwidth' of the "
                                       "A100 80GB SXM (nvidia.com/en-us/data-center/a100/)"),
}


def bandwidth(gpu_name: str | None) -> Datasheet | None:
    return _BANDWIDTH.get(gpu_name or "")
