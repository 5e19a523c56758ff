"""The sweep's plan: which (scenario, mode, point, variant) jobs, in which order, under which names.

Takes: variants (gen.model.variants), scenarios (gen.model.scenarios) and
modes. Gives: `Job` (one planned sweep point); `plan(...)` (series of jobs:
one scenario, mode, head dim and variant each, lengths growing, compiled
variants' series last, so that the time limit costs the fewest points);
`point_groups(series)` (the same jobs by point, every variant of a point
together); `trace_name`, `job_key` (its key in the staging store) and
`burst_key`.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.capture import staging
from gen.model import schema
from gen.model.scenarios import ARTICLE, Scenario
from gen.model.variants import Variant


@dataclass(frozen=True)
class Job:
    """One planned sweep point."""

    scenario: Scenario
    mode: str
    point: schema.Point
    variant: Variant
    trace: str | None  # path relative to the set, None: no trace kept


def trace_name(scenario: str, variant: str, mode: str, p: schema.Point, article_default_dim: int | None) -> str | None:
    """Unique per scenario. The article's inference sweep keeps its schema-1
    names, with traces at its own head dim only (as before)."""
    if scenario == ARTICLE and mode == schema.Mode.INFERENCE:
        if p.head_dim != article_default_dim:
            return None
        return f"{schema.TRACE_DIR}/sweep__{variant}__s{p.kv_len}_d{p.head_dim}.json.gz"
    return f"{schema.TRACE_DIR}/{scenario}__{variant}__{mode}__q{p.q_len}_k{p.kv_len}.json.gz"


def plan(variants: list[Variant], scenarios: list[Scenario], modes: list[str]) -> list[list[Job]]:
    """Series of jobs (one scenario, mode, head dim and variant; lengths
    growing), compiled variants' series last."""
    series = []
    for compiled in (False, True):
        for s in scenarios:
            groups = [(schema.Mode.INFERENCE.value, s.points())]
            if schema.Mode.TRAIN in modes:
                groups.append((schema.Mode.TRAIN.value, s.train_points()))
            for mode, points in groups:
                for dim in dict.fromkeys(p.head_dim for p in points):
                    for v in s.variants_for(variants):
                        if v.compiled != compiled:
                            continue
                        jobs = [Job(s, mode, p, v, trace_name(s.name, v.name, mode, p, s.head_dim))
                                for p in points if p.head_dim == dim]
                        if jobs:
                            series.append(jobs)
    return series


def job_key(job: Job) -> str:
    return staging.key_of("sweep", job.scenario.name, job.mode, job.variant.name, point=job.point)


def point_groups(series: list[list[Job]]) -> list[list[Job]]:
    """The jobs of `plan` by point: every variant of one (scenario, mode, point) together, timed in turn
    (its variants in plan's order, compiled ones last); the groups of one scenario, mode and head dim
    together, lengths growing as in plan."""
    by: dict[tuple, list[Job]] = {}
    runs: dict[tuple, list] = {}
    for jobs in series:
        for j in jobs:
            by.setdefault((j.scenario.name, j.mode, j.point), []).append(j)
            run = runs.setdefault((j.scenario.name, j.mode, j.point.head_dim), [])
            if j.point not in run:
                run.append(j.point)
    return [by[(sc, mode, pt)] for (sc, mode, _), pts in runs.items() for pt in pts]


def burst_key(job: Job) -> tuple:
    return (job.scenario.name, job.variant.name, job.mode, job.point)
