"""gen.capture.counters: reading Nsight Compute's CSV export, and the counter
pass end to end against a fake `ncu` on PATH (no GPU needed)."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import stat
import subprocess
import sys
import textwrap
import time

from gen.capture import counters
from gen.model import schema

POINT = schema.Point(8, 16, 16, 64, 1024, 1024, "causal")
NVTX = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"
HEADER = ["ID", "Process ID", "Process Name", "Host Name", NVTX, "Kernel Name", "Context", "Stream", "Block Size",
          "Grid Size", "Device", "CC", "gpu__time_duration.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
          "sm__maximum_warps_per_active_cycle_pct", "launch__registers_per_thread",
          "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic",
          "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
          "launch__occupancy_limit_blocks", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
          "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "lts__t_sector_hit_rate.pct",
          "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
          "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"]
UNITS = ["", "", "", "", "", "", "", "", "", "", "", "", "nsecond", "%", "%", "register/thread", "byte/block",
         "byte/block", "block", "block", "block", "block", "%", "%", "%", "%", "%"]
FLASH = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>, true>(Flash_fwd_params)"  # noqa: E501


def row(id_, nvtx, name, block, grid, dur, ach, theo, regs, s_static, s_dyn, limits, sm, dram, l2, tensor, hmma):
    return [str(id_), "4242", "python3", "host", nvtx, name, "1", "7", block, grid, "0", "9.0", dur, ach, theo, regs,
            s_static, s_dyn, *limits, sm, dram, l2, tensor, hmma]


ROWS = [
    # listed out of launch order on purpose: ID is the order
    row(2, "<default domain>:gen.naive:none", "softmax_warp_forward<c10::BFloat16, float, 10>", "(128, 1, 1)",
        "(32768, 1, 1)", "1,234,567", "90.5", "100", "32", "0", "0", ["2", "16", "16", "32"], "40", "91.2", "0.1",
        "0", "0"),
    row(1, "<default domain>:gen.naive:none", "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
        "(256, 1, 1)", "(8, 8, 128)", "500000", "20.1", "25", "232", "0", "65536", ["1", "3", "8", "32"], "70", "30",
        "50", "81.0", "80.5"),
    row(7, "<default domain>:gen.sdpa_flash:none", FLASH, "(128, 1, 1)", "(8, 8, 16)", "95000", "12.4", "12.5", "255",
        "0", "49152", ["1", "4", "16", "32"], "60", "20", "70", "n/a", "55.0"),
    row(5, "<default domain>:other:none", "not_ours", "(1, 1, 1)", "(1, 1, 1)", "1", "1", "1", "1", "0", "0",
        ["1", "1", "1", "1"], "1", "1", "1", "0", "0"),
]


def raw_csv(rows=ROWS, header=HEADER) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL)
    w.writerow(header)
    w.writerow(UNITS)
    for r in rows:
        w.writerow(r)
    return "==PROF== Disconnected from process 4242\n" + buf.getvalue()


DETAILS_HEADER = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
                  "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value",
                  "Rule Name", "Rule Type", "Rule Description", "Estimated Speedup Type", "Estimated Speedup"]


def details_csv() -> str:
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL)
    w.writerow(DETAILS_HEADER)
    base = ["4242", "python3", "host", FLASH, "1", "7", "(128, 1, 1)", "(8, 8, 16)", "0", "9.0"]
    w.writerow(["7", *base, "Occupancy", "Achieved Occupancy", "%", "12.4", "", "", "", "", ""])
    w.writerow(["7", *base, "Occupancy", "", "", "", "TheoreticalOccupancy", "OPT", "limited by registers",
                "local", "87.5"])
    w.writerow(["7", *base, "SpeedOfLight", "", "", "", "SOLBottleneck", "WRN", "compute bound", "global", "12"])
    w.writerow(["7", *base, "SpeedOfLight", "", "", "", "SOLBottleneck", "WRN", "again", "global", "15"])
    w.writerow(["7", *base, "LaunchStats", "", "", "", "LaunchConfiguration", "INF", "just so you know", "", ""])
    return buf.getvalue()


def test_raw_page_is_split_per_variant_in_launch_order():
    rows = counters.read_raw(raw_csv())
    assert len(rows) == 4  # the units row is not a kernel
    got = counters.split(rows, counters.read_rules(details_csv()), ["naive", "sdpa_flash"])
    assert sorted(got) == ["naive", "sdpa_flash"]  # the kernel in another range is dropped
    naive = got["naive"]
    assert [k.index for k in naive] == [0, 1]
    assert naive[0].name.startswith("ampere_bf16_s16816gemm") and naive[1].name.startswith("softmax_warp_forward<")
    gemm, softmax = naive
    assert gemm.duration_ns == 500000 and softmax.duration_ns == 1234567  # thousands separators read
    assert gemm.grid == [8, 8, 128] and gemm.block == [256, 1, 1]
    assert gemm.registers_per_thread == 232 and gemm.shared_memory_bytes == 65536
    assert gemm.occupancy_limiter == "registers" and softmax.occupancy_limiter == "registers"
    assert gemm.tensor_pipe_pct == 81.0  # all tensor pipes, the first metric of TENSOR_PIPES
    assert softmax.dram_throughput_pct == 91.2 and softmax.l2_hit_rate_pct == 0.1
    (flash,) = got["sdpa_flash"]
    assert flash.index == 0 and flash.name == FLASH
    assert flash.achieved_occupancy_pct == 12.4 and flash.theoretical_occupancy_pct == 12.5
    assert flash.tensor_pipe_pct == 55.0  # n/a is no value, not zero: the next metric of the list
    assert flash.shared_memory_bytes == 49152 and flash.occupancy_limiter == "registers"
    assert [(r.name, r.estimated_speedup_pct) for r in flash.rules] == [
        ("SOLBottleneck", 15.0), ("TheoreticalOccupancy", 87.5)]  # INF dropped; best estimate kept


def test_limiter_is_the_smallest_limit():
    header = HEADER
    r = row(0, "gen.x", "k", "(32, 1, 1)", "(1, 1, 1)", "1", "1", "1", "16", "1024", "2048", ["64", "3", "48", "32"],
            "1", "1", "1", "0", "0")
    (k,) = counters.split(counters.read_raw(raw_csv([r], header)), {}, ["x"])["x"]
    assert k.occupancy_limiter == "shared_memory" and k.shared_memory_bytes == 3072


def test_no_range_column_means_nothing_attributed_unless_one_variant_per_process():
    header = [h for h in HEADER if h != NVTX]
    rows = [r[:4] + r[5:] for r in ROWS]
    parsed = counters.read_raw(raw_csv(rows, header))
    assert counters.split(parsed, {}, ["naive", "sdpa_flash"]) == {}
    only = counters.split(parsed, {}, ["naive"], only="naive")["naive"]
    assert [k.index for k in only] == [0, 1, 2, 3] and only[0].name.startswith("ampere")


def test_cpu_records_unavailable_with_the_reason():
    p = counters.collect(["naive"], "inference", POINT, "bf16", device="cpu")
    assert p.counters["naive"] == schema.Counters(status="unavailable", reason="no GPU")


def fake_ncu(tmp_path, body: str):
    exe = tmp_path / "bin" / "ncu"
    exe.parent.mkdir()
    exe.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe.parent


def test_missing_counter_permission_is_unavailable_with_ncus_words(tmp_path, monkeypatch):
    bin_dir = fake_ncu(tmp_path, """
        import sys
        if "--version" in sys.argv:
            print("NVIDIA (R) Nsight Compute Command Line Profiler\\nVersion 2025.3.1.0 (build 1) (public-release)")
        elif "--query-metrics" in sys.argv:
            print("sm__pipe_tensor_op_gmma_cycles_active   # of cycles where the GMMA pipe was active")
        else:
            print("==PROF== Connected to process 1")
            print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                  "Performance Counters on the target device 0.")
            sys.exit(1)
    """)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    p = counters.collect(["naive", "sdpa_flash"], "inference", POINT, "bf16", device="cuda")
    assert p.ncu_version == "Version 2025.3.1.0 (build 1) (public-release)"
    for c in p.counters.values():
        assert c.status == "unavailable" and c.reason.startswith("ERR_NVGPUCTRPERM - The user does not have")


def test_a_whole_pass_against_a_fake_ncu(tmp_path, monkeypatch):
    (tmp_path / "raw.csv").write_text(raw_csv().replace("gen.", "gen.train__"))
    (tmp_path / "details.csv").write_text(details_csv())
    bin_dir = fake_ncu(tmp_path, f"""
        import sys, pathlib
        argv = sys.argv[1:]
        if "--version" in argv:
            print("Version 2025.3.1.0")
        elif "--query-metrics" in argv:
            print("lts__t_sector_hit_rate   hit rate")
        elif "--import" in argv:
            page = argv[argv.index("--page") + 1]
            print(pathlib.Path({str(tmp_path)!r}, page + ".csv").read_text())
        else:
            pathlib.Path({str(tmp_path)!r}, "argv.txt").write_text("\\n".join(argv))
            pathlib.Path(argv[argv.index("--export") + 1]).write_text("report")
            print("ran train__naive")
            print("ran train__sdpa_flash")
            print("refused train__sdpa_cudnn: RuntimeError: No available kernel.")
    """)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    p = counters.collect(["naive", "sdpa_flash", "sdpa_cudnn"], "train", POINT, "bf16", device="cuda")
    argv = (tmp_path / "argv.txt").read_text().splitlines()
    # the clocks are left alone, and only the variants' ranges are profiled
    assert argv[argv.index("--clock-control") + 1] == "none"
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--nvtx-include"] == [
        "gen.train__naive", "gen.train__sdpa_flash", "gen.train__sdpa_cudnn"]
    assert argv[argv.index("--metrics") + 1] == "lts__t_sector_hit_rate.pct"  # only metrics this ncu knows
    assert argv[argv.index("--mode") + 1] == "train" and "gen.capture.ncu_target" in argv
    assert p.counters["naive"].status == "ok" and len(p.counters["naive"].kernels) == 2
    assert p.counters["sdpa_flash"].kernels[0].rules[0].name == "SOLBottleneck"
    cudnn = p.counters["sdpa_cudnn"]
    assert cudnn.status == "unavailable" and "No available kernel" in cudnn.reason
    assert p.seconds > 0


def test_every_mode_in_one_ncu_process(tmp_path, monkeypatch):
    """One ncu process (torch imported, ncu's metrics queried once) profiles both
    modes; each mode's kernels come back under its own name, the seconds on the first."""
    raw = raw_csv().replace("gen.naive", "gen.inference__naive").replace("gen.sdpa_flash", "gen.train__naive")
    (tmp_path / "raw.csv").write_text(raw)
    (tmp_path / "details.csv").write_text(details_csv())
    bin_dir = fake_ncu(tmp_path, f"""
        import sys, pathlib
        argv = sys.argv[1:]
        if "--version" in argv:
            print("Version 2025.3.1.0")
        elif "--query-metrics" in argv:
            print("")
        elif "--import" in argv:
            print(pathlib.Path({str(tmp_path)!r}, argv[argv.index("--page") + 1] + ".csv").read_text())
        else:
            with open(pathlib.Path({str(tmp_path)!r}, "calls.txt"), "a") as fh:
                fh.write(" ".join(argv) + "\\n")
            pathlib.Path(argv[argv.index("--export") + 1]).write_text("report")
            print("ran inference__naive")
            print("refused train__sdpa_cudnn: RuntimeError: No available kernel.")
    """)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    got = counters.collect_modes({"inference": ["naive"], "train": ["naive", "sdpa_cudnn"]}, POINT, "bf16",
                                 device="cuda")
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert len(calls) == 1  # one process for both modes
    argv = calls[0].split()
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--mode"] == ["inference", "train"]
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--variants"] == ["naive", "naive,sdpa_cudnn"]
    assert len(got["inference"].counters["naive"].kernels) == 2
    assert len(got["train"].counters["naive"].kernels) == 1
    cudnn = got["train"].counters["sdpa_cudnn"]
    assert cudnn.status == "unavailable" and "No available kernel" in cudnn.reason
    assert got["inference"].seconds > 0 and got["train"].seconds == 0.0
    assert got["train"].log[0] == "refused sdpa_cudnn: RuntimeError: No available kernel."
    assert got["train"].log[1].startswith("times: ncu ran the program in")


# --------------------------------------------------------------------------- calls that repeat earlier calls

A = ("softmax", (32768, 1, 1), (128, 1, 1), 0)
B = ("gemm", (8, 8, 128), (256, 1, 1), 65536)
C = ("copy", (16384, 1, 1), (128, 1, 1), 0)
D = ("gemm_bwd", (8, 8, 128), (256, 1, 1), 65536)


def kc(i, launch, dur):
    name, grid, block, smem = launch
    return schema.KernelCounters(index=i, name=name, grid=list(grid), block=list(block), duration_ns=dur,
                                 shared_memory_bytes=smem)


def test_a_call_whose_launches_all_repeat_earlier_calls_is_covered():
    jobs = {"inference__naive": [C, C, B, A], "inference__naive_inplace": [C, C, B, A],
            "train__naive": [C, B, A, D, A], "train__sdpa_auto": [A, D]}
    # a training step's launches repeat only launches of training steps (its forward may pass other arguments)
    assert counters.plan_once(jobs)["train__naive"] == [("train__naive", i) for i in range(5)]
    # the k-th launch of a configuration matches the k-th of the earlier call: the twin, position by position
    assert counters.plan_once(jobs)["inference__naive_inplace"] == [("inference__naive", i) for i in range(4)]
    # a second softmax in a call whose twin launched one: its own
    assert counters.plan_once({"train__naive": [A, D], "train__x": [A, D, A]})["train__x"] == [
        ("train__naive", 0), ("train__naive", 1), ("train__x", 2)]
    # the in-place twin and sdpa_auto repeat earlier launches of their mode only
    assert counters.covered(jobs) == {"inference__naive_inplace", "train__sdpa_auto"}
    assert counters.covered({"inference__naive": [C, B], "train__naive": [C, B]}) == set()


def test_fill_copies_each_launch_and_names_the_one_it_repeats():
    jobs = {"inference__naive": [C, B, A], "train__naive": [C, D], "train__sdpa_auto": [D, C]}
    found = {"inference__naive": [kc(0, C, 1.0), kc(1, B, 2.0), kc(2, A, 3.0)], "train__naive": [kc(0, C, 9.0),
                                                                                                kc(1, D, 4.0)]}
    out, bad = counters.fill(found, jobs, {"train__sdpa_auto"})
    assert not bad
    auto = out["train__sdpa_auto"]
    assert [k.index for k in auto] == [0, 1] and [k.duration_ns for k in auto] == [4.0, 9.0]
    assert [k.same_as for k in auto] == ["train__naive#1", "train__naive#0"]
    assert out["train__naive"][0].same_as is None  # a call profiled itself keeps its own rows


def test_fill_refuses_to_copy_from_rows_that_are_not_the_predicted_launches():
    jobs = {"inference__naive": [C, B], "train__sdpa_auto": [B]}
    assert counters.fill({"inference__naive": [kc(0, C, 1.0)]}, jobs, {"train__sdpa_auto"})[1] == {"train__sdpa_auto"}
    wrong_grid = {"inference__naive": [kc(0, C, 1.0), kc(1, A, 2.0)]}
    assert counters.fill(wrong_grid, jobs, {"train__sdpa_auto"})[1] == {"train__sdpa_auto"}
    wrong_smem = {"inference__naive": [kc(0, C, 1.0), kc(1, (B[0], B[1], B[2], 1024), 2.0)]}
    assert counters.fill(wrong_smem, jobs, {"train__sdpa_auto"})[1] == {"train__sdpa_auto"}


def _launch_row(id_, job, launch):
    name, grid, block, smem = launch
    return row(id_, f"<default domain>:gen.{job}:none", name, str(block), str(grid), "100", "50", "50", "32",
               "0", str(smem), ["1", "1", "1", "1"], "10", "10", "10", "0", "0")


FAKE_NCU = """
    import json, sys, pathlib, time
    argv = sys.argv[1:]
    tmp = pathlib.Path({tmp!r})
    if "--version" in argv:
        print("Version 2025.3.1.0")
    elif "--query-metrics" in argv:
        print("")
    elif "--import" in argv:
        page = argv[argv.index("--page") + 1]
        n = "2" if "again" in argv[argv.index("--import") + 1] else "1"
        print((tmp / (page + (n if page == "raw" else "") + ".csv")).read_text())
    else:
        with open(tmp / "calls.txt", "a") as fh:
            fh.write(" ".join(argv) + "\\n")
        todo = None
        if "--wait-for" in argv:  # an early process: its program waits for the go file, runs what it names
            go = pathlib.Path(argv[argv.index("--wait-for") + 1])
            while not go.exists():
                time.sleep(0.05)
            todo = json.loads(go.read_text())
            (tmp / "go.txt").write_text(json.dumps(todo))
        if todo != {{}}:
            pathlib.Path(argv[argv.index("--export") + 1]).write_text("report")
"""


def test_a_pass_does_not_profile_a_call_that_repeats_earlier_calls(tmp_path, monkeypatch):
    (tmp_path / "raw1.csv").write_text(raw_csv([_launch_row(1, "inference__naive", C),
                                                _launch_row(2, "inference__naive", B),
                                                _launch_row(3, "train__naive", C), _launch_row(4, "train__naive", B),
                                                _launch_row(5, "train__naive", D)]))
    (tmp_path / "details.csv").write_text(details_csv())
    monkeypatch.setenv("PATH", f"{fake_ncu(tmp_path, FAKE_NCU.format(tmp=str(tmp_path)))}{os.pathsep}"
                               f"{os.environ['PATH']}")
    launches = {"inference__naive": [C, B], "inference__sdpa_auto": [B], "train__naive": [C, B, D]}
    got = counters.collect_modes({"inference": ["naive", "sdpa_auto"], "train": ["naive"]}, POINT, "bf16",
                                 device="cuda", launches=launches)
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert len(calls) == 1
    argv = calls[0].split()
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--nvtx-include"] == ["gen.inference__naive",
                                                                                 "gen.train__naive"]
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--variants"] == ["naive", "naive"]
    auto = got["inference"].counters["sdpa_auto"]
    assert auto.status == "ok" and [k.same_as for k in auto.kernels] == ["inference__naive#1"]
    assert got["train"].counters["naive"].kernels[2].name == "gemm_bwd"
    assert any("not profiled, every launch repeating" in line and "sdpa_auto" in line
               for line in got["inference"].log)


def test_a_call_copied_from_rows_that_do_not_check_out_is_profiled_after_all(tmp_path, monkeypatch):
    # inference__naive's second launch did not come back: sdpa_auto, which repeats it, is profiled itself
    (tmp_path / "raw1.csv").write_text(raw_csv([_launch_row(1, "inference__naive", C)]))
    (tmp_path / "raw2.csv").write_text(raw_csv([_launch_row(1, "inference__sdpa_auto", B)]))
    (tmp_path / "details.csv").write_text(details_csv())
    monkeypatch.setenv("PATH", f"{fake_ncu(tmp_path, FAKE_NCU.format(tmp=str(tmp_path)))}{os.pathsep}"
                               f"{os.environ['PATH']}")
    got = counters.collect_modes({"inference": ["naive", "sdpa_auto"]}, POINT, "bf16", device="cuda",
                                 launches={"inference__naive": [C, B], "inference__sdpa_auto": [B]})
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert len(calls) == 2
    again = calls[1].split()
    assert [again[i + 1] for i, a in enumerate(again) if a == "--nvtx-include"] == ["gen.inference__sdpa_auto"]
    auto = got["inference"].counters["sdpa_auto"].kernels
    assert [k.name for k in auto] == ["gemm"] and auto[0].same_as is None


def test_without_every_calls_launches_every_call_is_profiled(tmp_path, monkeypatch):
    (tmp_path / "raw1.csv").write_text(raw_csv().replace("gen.", "gen.inference__"))
    (tmp_path / "details.csv").write_text(details_csv())
    monkeypatch.setenv("PATH", f"{fake_ncu(tmp_path, FAKE_NCU.format(tmp=str(tmp_path)))}{os.pathsep}"
                               f"{os.environ['PATH']}")
    got = counters.collect_modes({"inference": ["naive", "sdpa_flash"]}, POINT, "bf16", device="cuda",
                                 launches={"inference__naive": [C, B], "inference__sdpa_flash": []})
    argv = (tmp_path / "calls.txt").read_text().split()
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--nvtx-include"] == ["gen.inference__naive",
                                                                                 "gen.inference__sdpa_flash"]
    assert len(got["inference"].counters["naive"].kernels) == 2


# --------------------------------------------------------------------------- an ncu process started early


def test_an_early_ncu_process_waits_and_runs_only_what_the_pass_needs(tmp_path, monkeypatch):
    (tmp_path / "raw1.csv").write_text(raw_csv([_launch_row(1, "inference__naive", C),
                                                _launch_row(2, "inference__naive", B)]))
    (tmp_path / "details.csv").write_text(details_csv())
    monkeypatch.setenv("PATH", f"{fake_ncu(tmp_path, FAKE_NCU.format(tmp=str(tmp_path)))}{os.pathsep}"
                               f"{os.environ['PATH']}")
    early = counters.start_early({"inference": ["naive", "sdpa_auto", "sdpa_flash"]}, POINT, "bf16")
    try:
        time.sleep(0.3)
        assert early.proc.poll() is None  # waiting for the pass
        # sdpa_flash did not run; sdpa_auto repeats naive's launch: only naive is profiled
        got = counters.collect_modes({"inference": ["naive", "sdpa_auto"]}, POINT, "bf16", device="cuda",
                                     launches={"inference__naive": [C, B], "inference__sdpa_auto": [B]},
                                     early=early)
    finally:
        early.stop()
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert len(calls) == 1  # the early process, no other
    argv = calls[0].split()
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--nvtx-include"] == [
        "gen.inference__naive", "gen.inference__sdpa_auto", "gen.inference__sdpa_flash"]
    assert argv[argv.index("--parent-pid") + 1] == str(os.getpid())
    assert json.loads((tmp_path / "go.txt").read_text()) == {"inference": ["naive"]}
    assert len(got["inference"].counters["naive"].kernels) == 2
    assert got["inference"].counters["sdpa_auto"].kernels[0].same_as == "inference__naive#1"


def test_an_early_ncu_process_left_unused_is_told_to_stop(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{fake_ncu(tmp_path, FAKE_NCU.format(tmp=str(tmp_path)))}{os.pathsep}"
                               f"{os.environ['PATH']}")
    early = counters.start_early({"train": ["naive"]}, POINT, "bf16")
    # another point than the one it was started for: the pass runs its own process
    assert not early.covers({"train": ["naive"]}, dataclasses.replace(POINT, q_len=POINT.q_len * 2), "bf16", 0)
    assert not early.covers({"train": ["naive", "flex"]}, POINT, "bf16", 0)
    early.stop()
    assert early.proc.returncode == 0 and json.loads((tmp_path / "go.txt").read_text()) == {}
    assert counters.start_early({"train": ["naive"]}, POINT, "bf16", device="cpu") is None


def test_the_counter_program_waits_for_its_go_file_or_its_parent(tmp_path):
    from gen.capture import ncu_target

    go = tmp_path / "go.json"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    assert ncu_target.wait_for(go, dead.pid, poll_s=0.01) is None  # the capture is gone: nothing to run
    go.write_text(json.dumps({"train": ["naive"]}))
    assert ncu_target.wait_for(go, os.getpid()) == {"train": ["naive"]}


def test_the_counter_program_stops_between_calls_once_the_capture_is_gone(monkeypatch):
    from gen.capture import ncu_target

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    profiled = []
    monkeypatch.setattr(ncu_target, "profile_one", lambda *a: profiled.append(a))
    assert ncu_target.run(["naive", "sdpa_flash"], "inference", POINT, None, 0, dead.pid) is False
    assert profiled == []  # a killed capture's ncu replays nothing more
    assert ncu_target.run(["naive"], "inference", POINT, None, 0, os.getpid()) is True and len(profiled) == 1
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    time.sleep(0.5)  # exited, not reaped yet
    assert not ncu_target.alive(zombie.pid)
    zombie.wait()
