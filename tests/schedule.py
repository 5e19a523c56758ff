"""The order in which `pytest -n 2 --dist loadfile` (the README's command, noxfile.py's `tests`) hands test
files to its workers: the heaviest first, so that the light ones fill in at the end and both workers finish
together (xdist's own order, most tests first, left files of two or three slow tests to the end, one
worker's long tail the whole run's); and a file that reads a build shared by the session (conftest.py's
shared_dir: a built site, the matrix, the Markdown pages) is not started while another worker is still
in the first test of a file that reads the same build (it would wait there for that build, idle); and
the files whose tiny CPU captures compile FlexAttention with Inductor (COMPILES) run one after the other,
never side by side, so that the second finds the first's kernels in Inductor's cache.

Only the order changes: every file still runs whole on one worker. conftest.py's
pytest_xdist_make_scheduler returns this scheduler for --dist loadfile."""

from __future__ import annotations

import re
from collections import OrderedDict
from pathlib import Path

from xdist.scheduler import LoadFileScheduling

# Seconds of CPU (both cores, Chromium and subprocesses counted) of the heaviest files, measured on the
# 2-core machine in December 2026 (again after the scenario charts' skeletons and the builds made in the test's
# process); a file not named weighs WEIGHT_PER_TEST a test. Only the order depends on them: a stale number costs
# balance, never a test.
WEIGHTS = {
    "test_build_cache.py": 49, "test_capture.py": 38, "test_trace_digest.py": 38, "test_hostile_names.py": 35,
    "test_browser.py": 33, "test_matrix_browser.py": 31, "test_site_build.py": 26, "test_console.py": 26,
    "test_hostile_build.py": 25, "test_hostile_round3.py": 22, "test_import.py": 17, "test_scenarios20.py": 3,
    "test_scale.py": 11, "test_schema_reading.py": 11, "test_first_screen_browser.py": 11, "test_hostile_limits.py": 11,
    "test_hostile.py": 10, "test_scenario_report.py": 8, "test_analysis.py": 8, "test_verdict_rules.py": 8,
    "test_scenarios.py": 7, "test_new_set.py": 7, "test_mkdocs_hook.py": 6,
}
WEIGHT_PER_TEST = 0.1

# The session's shared builds (conftest.py), as a file that reads one names it.
SHARED = re.compile(r"\bbuilt_site\([^)]*\)|\bmatrix_site\b|\bgpu_docs\b|\bresults_docs\b")

# Files whose captures (`gen profile --tiny`, the packed-documents, decode and deterministic-backward scenarios)
# compile FlexAttention's CPU kernels with Inductor: C++ built by g++ (its precompiled header, the vector ISA
# checks, a few seconds a kernel), 30 to 50 s of CPU more where Inductor's cache (/tmp/torchinductor_$USER, shared
# by every process) does not hold them yet, as on a new machine or CI's. Both read one capture now, conftest.py's
# readme_capture (made by the first to ask, the other waiting on its lock): side by side, the second would wait
# idle for it, so they still run one after the other. (Before, each made its own capture: side by side, both
# compiled the same kernels; test_scenarios20's capture was 38 s of CPU cold, 12.5 s after the README's.)
COMPILES = frozenset({"test_hostile_round3.py", "test_scenarios20.py"})
INDUCTOR = "Inductor's cache"


def weight(scope: str, tests: int) -> float:
    return WEIGHTS.get(Path(scope).name, WEIGHT_PER_TEST * tests)


def shared_builds(path: Path) -> frozenset[str]:
    try:
        return frozenset(SHARED.findall(path.read_text(encoding="utf-8")))
    except OSError:
        return frozenset()


def compiles(scope: str) -> frozenset[str]:
    return frozenset({INDUCTOR}) if Path(scope).name in COMPILES else frozenset()


class HeaviestFirst(LoadFileScheduling):
    def _assign_work_unit(self, node) -> None:
        if not getattr(self, "_ordered", False):
            order = sorted(self.workqueue.items(), key=lambda kv: -weight(kv[0], len(kv[1])))
            self.workqueue = OrderedDict(order)
            self._builds = {scope: shared_builds(self.config.rootpath / scope) for scope in self.workqueue}
            self._compiles = {scope: compiles(scope) for scope in self.workqueue}
            self._ordered = True
        # builds another worker is making now: those of a file it has begun and finished no test of yet; and
        # Inductor's cache while another worker has a file of COMPILES not finished
        making = set()
        for other, work in self.assigned_work.items():
            if other is not node:
                for scope, tests in work.items():
                    if not any(tests.values()):
                        making |= self._builds.get(scope, frozenset())
                    if not all(tests.values()):
                        making |= self._compiles.get(scope, frozenset())
        ready = next((s for s in self.workqueue if not (self._builds[s] | self._compiles[s]) & making), None)
        if ready is not None:
            self.workqueue.move_to_end(ready, last=False)
        super()._assign_work_unit(node)
