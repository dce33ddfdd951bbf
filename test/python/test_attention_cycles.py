"""benchmarks/attention_cycles.py's CPU side: the ncu command it runs and
what it reads from ncu's CSV (the GPU side runs on the device)."""
import json
import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import attention_cycles as ac  # noqa: E402

HEADER = '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",' \
         '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'


def _csv(kernel_ids=("0", ), metrics=ac.METRICS):
    rows = [f'"{i}","877","python3.12","127.0.0.1","attn_fwd_kernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0",'
            f'"Command line profiler metrics","{m}","cycle","{1000 + j},{j:03d}"'
            for i in kernel_ids for j, m in enumerate(metrics)]
    return "\n".join(["==PROF== Connected to process 877", HEADER, *rows, "==PROF== Disconnected from process 877"])


def test_reads_the_metrics_of_the_one_kernel():
    assert ac.parse_ncu_csv(_csv()) == {m: 1000000.0 + j * 1001 for j, m in enumerate(ac.METRICS)}


@pytest.mark.parametrize("text, message", [
    ("==PROF== No kernels were profiled.", "ncu printed no metrics table"),
    (_csv(kernel_ids=("0", "1")), "of 2 kernel(s)"),
    (_csv(metrics=ac.METRICS[:2]), "expected 8 metrics of one kernel, got ['gpc__cycles_elapsed.max', 'sm__cycles"),
])
def test_says_what_is_missing(text, message):
    with pytest.raises(ValueError) as error:
        ac.parse_ncu_csv(text)
    assert message in str(error.value)


def test_command_profiles_the_second_launch_of_one_provider():
    ours = ac.ncu_command("ncu", "/tmp/log", 16384, 128, True, "bfloat16", {"cluster": 1})
    assert ours[:4] == ["ncu", "--clock-control", "none", "--cache-control"]
    assert ours[ours.index("--launch-skip") + 1] == "1" and ours[ours.index("--launches") + 1] == "2"
    assert ours[ours.index("--options") + 1] == '{"cluster": 1}' and "--causal" in ours and "--fa3" not in ours
    other = ac.ncu_command("ncu", "/tmp/log", 16384, 128, True, "bfloat16", {}, "/tmp/base/examples")
    assert other[other.index("--examples") + 1] == "/tmp/base/examples" and "--examples" not in ours
    fa3 = ac.ncu_command("ncu", "/tmp/log", 4096, 64, False, "bfloat16")
    assert "--fa3" in fa3 and "--options" not in fa3 and "--causal" not in fa3
    assert fa3[fa3.index("--head-dim") + 1] == "64" and fa3[fa3.index("--n") + 1] == "4096"


def test_summary_gives_medians_and_ratios():
    rows = [dict(name=name, **{"gpc__cycles_elapsed.max": c, "sm__cycles_active.avg": c * busy,
                               "sm__cycles_active.min": c * busy * ends, "sm__cycles_active.max": c * busy,
                               "lts__t_sector_hit_rate.pct": hit, "dram__bytes_read.sum": c * 100})
            for name, c, busy, ends, hit in
            [("default", 5.0e6, 0.95, 0.9, 86.0), ("default", 5.2e6, 0.93, 0.92, 85.0),
             ("default", 5.1e6, 0.94, 0.91, 87.5), ("b", 4.9e6, 0.97, 0.95, 90.0), ("b", 5.0e6, 0.97, 0.96, 91.0),
             ("b", 4.8e6, 0.99, 0.97, 92.0), (ac.FA3, 4.7e6, 0.99, 0.98, 94.0), (ac.FA3, 4.7e6, 0.98, 0.99, 94.0),
             (ac.FA3, 4.8e6, 0.99, 0.98, 93.0)]]
    assert ac.summary(rows, "default") == (
        f"default=5.100M active 4.794M busy 94.0% ends 91.0% L2 86.0% DRAM 510MB FA3/it 0.9216 "
        f"b=4.900M active 4.753M busy 97.0% ends 96.0% L2 91.0% DRAM 490MB x1.0408 FA3/it 0.9592 "
        f"{ac.FA3}=4.700M active 4.653M busy 99.0% ends 98.0% L2 94.0% DRAM 470MB x1.0851")


FAKE_NCU = '''#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
log = args[args.index("--log-file") + 1]
which = "fa3" if "--fa3" in args else args[args.index("--options") + 1]
which += args[args.index("--examples") + 1] if "--examples" in args else ""
with open(os.environ["CALLS"], "a") as calls:
    calls.write(json.dumps([which, os.environ.get("SWITCH"), os.path.basename(os.environ["TRITON_CACHE_DIR"])]) + "\\n")
cycles = {"fa3": 4.0e6}.get(which, 5.0e6 if os.environ.get("SWITCH") == "1" else 4.5e6)
with open(log, "w") as out:
    out.write(HEADER + "\\n")
    for name in METRICS:
        value = 87.5 if name.endswith(".pct") else cycles
        out.write(f'"0","1","p","h","k","1","7","b","g","0","9.0","s","{name}","cycle","{value:.1f}"\\n')
'''


def test_runs_rounds_in_rotation_with_each_sets_environment(tmp_path, monkeypatch, capsys):
    ncu = tmp_path / "ncu"
    ncu.write_text(FAKE_NCU.replace("HEADER", repr(HEADER)).replace("METRICS", repr(ac.METRICS)))
    ncu.chmod(0o755)
    monkeypatch.setenv("CALLS", str(tmp_path / "calls"))
    monkeypatch.setattr(sys, "argv", ["attention_cycles.py", '{"default": {}, "on": {"_env": {"SWITCH": "1"}, "_examples": "/old"}}',
                                      "--shapes", "4096:128:1", "--fa3", "--rounds", "2", "--ncu", str(ncu),
                                      "--out", str(tmp_path / "rows.jsonl")])
    ac.main()
    calls = [json.loads(line) for line in (tmp_path / "calls").read_text().splitlines()]
    assert calls == [["{}", None, "default"], ["{}/old", "1", "on"], ["fa3", None, ac.FA3],
                     ["{}/old", "1", "on"], ["fa3", None, ac.FA3], ["{}", None, "default"]]
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert [(r["name"], r["round"], r["gpc__cycles_elapsed.max"]) for r in rows][:3] == [
        ("default", 0, 4.5e6), ("on", 0, 5.0e6), (ac.FA3, 0, 4.0e6)]
    assert capsys.readouterr().out == (
        "4096:128:1 default=4.500M active 4.500M busy 100.0% ends 100.0% L2 87.5% DRAM 4MB FA3/it 0.8889 "
        "on=5.000M active 5.000M busy 100.0% ends 100.0% L2 87.5% DRAM 5MB x0.9000 FA3/it 0.8000 "
        f"{ac.FA3}=4.000M active 4.000M busy 100.0% ends 100.0% L2 87.5% DRAM 4MB x1.1250\n")


def test_a_failing_ncu_run_names_the_provider_and_shape(tmp_path, monkeypatch):
    ncu = tmp_path / "ncu"
    ncu.write_text("#!/bin/sh\necho '==ERROR== ERR_NVGPUCTRPERM: no permission to the GPU performance counters' >&2\n"
                   "exit 1\n")
    ncu.chmod(0o755)
    monkeypatch.setattr(sys, "argv", ["attention_cycles.py", '{"default": {}}', "--shapes", "4096:64:0",
                                      "--ncu", str(ncu)])
    with pytest.raises(SystemExit) as stop:
        ac.main()
    assert str(stop.value) == ("attention_cycles: default at 4096:64:0: ncu exited 1: ==ERROR== ERR_NVGPUCTRPERM: "
                               "no permission to the GPU performance counters\n")
