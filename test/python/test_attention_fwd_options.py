"""examples/hopper_flash_attention.py's choices beyond its config, compiled
for sm_90 on the CPU: default_schedule and default_issue per head dim and
sequence length, rescale_skip's and late_pv_wait's checks, the lazy
rescale's PTX and where the late PV wait lands in SASS."""
import os
import re
import sys

import pytest

from conftest import ROOT, kv_loops, sass_of, wgmma_wait_events

sys.path.insert(0, os.path.join(ROOT, "examples"))


def test_flash_attention_default_schedule():
    """At head dim 256: O over V with a third V stage up to N = 1024, Q's
    first 64 columns in registers at 240 registers from 2048; only for the
    default config; elsewhere O over Q, Q in shared memory, 232 registers."""
    import hopper_flash_attention as fa

    plain = dict(o_staging="q", v_stages=None, q_reg_cols=0, consumer_registers=232)
    assert fa.default_schedule(256, 1024) == dict(o_staging="v", v_stages=3, q_reg_cols=0, consumer_registers=232)
    assert fa.default_schedule(256, 2048) == dict(o_staging="q", v_stages=None, q_reg_cols=64,
                                                  consumer_registers=240)
    assert fa.default_schedule(128, 1024) == plain
    assert fa.default_schedule(128, 4096) == plain
    assert fa.default_schedule(256, 1024, alias=False) == plain
    assert fa.default_schedule(256, 1024, stages=3) == plain  # 3 K + 3 V would not fit


def test_flash_attention_default_groups():
    """Three consumer warp groups (192-row tiles) at head dim 64 from N = 2048."""
    import hopper_flash_attention as fa

    assert [fa.default_groups(64, False, n) for n in (1024, 2048, 4096)] == [2, 3, 3]
    assert [fa.default_groups(64, True, n) for n in (1024, 2048, 4096, 16384)] == [2, 3, 3, 3]
    assert {fa.default_groups(d, c, 4096) for d in (128, 256) for c in (False, True)} == {2}


def test_flash_attention_default_issue():
    """P in 16 bits and turns that cover PV at head dim 64; P in 16 bits for
    causal head dim 128 up to N = 4096 and with the lazy rescale; neither
    elsewhere. Every thread arrives for itself on the K, Q and V rings, but
    on V at head dim 256 non-causal in one CTA. The lazy rescale (threshold 8) from
    N = 4096, at 128 from 2048 (causal 4096) with the late PV wait, causal
    with it amid the exp2s ("half", head dims 64 and 128). Row sums by lane
    causal at head dims 64 and 128, non-causal at 256."""
    import hopper_flash_attention as fa

    assert [fa.default_issue(64, causal, n) for causal in (False, True) for n in (1024, 4096)] == [
        (True, True, "kqv", False, False, False), (True, True, "kqv", 8.0, False, False),
        (True, True, "kqv", False, False, True), (True, True, "kqv", 8.0, "half", True)]
    assert fa.default_issue(128, True, 4096) == (True, False, "kqv", 8.0, "half", True)
    assert fa.default_issue(128, True, 2048) == (True, False, "kqv", False, False, True)
    assert fa.default_issue(128, True, 16384) == (True, False, "kqv", 8.0, "half", True)
    assert fa.default_issue(128, False, 16384) == (False, False, "kqv", 8.0, True, False)
    assert fa.default_issue(128, False, 4096) == (False, False, "kqv", 8.0, True, False)
    assert fa.default_issue(128, True, 8192) == (True, False, "kqv", 8.0, "half", True)
    assert fa.default_issue(128, False, 2048) == (False, False, "kqv", 8.0, True, False)
    assert fa.default_issue(128, False, 1024) == (False, False, "kqv", False, False, False)
    assert fa.default_issue(256, True, 1024) == (False, False, "kqv", False, False, False)
    assert fa.default_issue(256, True, 4096) == (False, False, "kqv", 8.0, False, False)
    assert fa.default_issue(256, False, 16384) == (False, False, "kq", 8.0, False, True)
    assert fa.default_issue(256, False, 16384, cluster=2) == (False, False, "kqv", 8.0, False, True)


def test_flash_attention_late_pv_wait_refusals():
    import hopper_flash_attention as fa

    with pytest.raises(ValueError) as error:
        fa.check_late_pv_wait(True, fa.check_rescale_skip(False))
    assert str(error.value) == ("attention: late_pv_wait waits for PV inside the rescale's skip, which needs "
                                "rescale_skip (True or a lazy rescale's threshold)")
    with pytest.raises(ValueError) as error:
        fa.check_late_pv_wait("yes", 8.0)
    assert str(error.value) == "attention: late_pv_wait must be True, False or 'half', got 'yes'"
    with pytest.raises(ValueError) as error:
        fa.check_late_pv_wait("half", 8.0, p_16bit=False)
    assert str(error.value) == "attention: late_pv_wait='half' takes P in 16 bits (p_16bit=True or groups=3)"
    assert [fa.check_late_pv_wait(o, 0.0) for o in (False, True, "half")] == [False, True, "half"]


@pytest.mark.parametrize("head_dim, options", [
    (64, dict(causal=True, groups=3, pv_in_turn=True)), (64, dict(causal=False, groups=3, pv_in_turn=True)),
    (128, dict(causal=True, cluster=2))])
def test_flash_attention_half_late_pv_wait_waits_amid_the_exp2s(head_dim, options, tmp_path, monkeypatch):
    """late_pv_wait="half" waits for PV between the exp2s of a block's first
    half of columns and those of its second (FlashAttention-3's loop at head
    dim 64 waits after 14 of its 66): in each K/V loop QK^T's wait, a run
    of exp2s, PV's wait on both sides of the rescale's branch, the other
    run. No spills at three groups' 160 registers (the wait after all of
    them spilled 58-73 instructions a loop there), and no more shuffles than
    with the wait before them: the halves are a register bit of the wgmma
    accumulator."""
    import hopper_flash_attention as fa

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    kernel = fa.compile_for_sm90(head_dim, dtype="bf16", p_16bit=True, rescale_skip=8.0, late_pv_wait="half",
                                 **options)
    events = wgmma_wait_events(kernel, tmp_path)
    loops = [i for i, e in enumerate(events) if e == "wait1" and events[i + 1:i + 2] == ["exp2"]]
    assert len(loops) >= 2 and all(events[i + 1:i + 5] == ["exp2", "wait0", "wait0", "exp2"] for i in loops), events
    sass = sass_of(kernel, tmp_path)
    before = sass_of(fa.compile_for_sm90(head_dim, dtype="bf16", p_16bit=True, rescale_skip=8.0, **options), tmp_path)
    assert not re.search(r"\b(LDL|STL)\b", sass) and sass.count("SHFL.IDX") == before.count("SHFL.IDX")


@pytest.mark.parametrize("head_dim, options", [
    (64, dict(causal=True, groups=3, p_16bit=True, pv_in_turn=True, rescale_skip=8.0, late_pv_wait="half")),
    (128, dict(causal=False, rescale_skip=8.0, late_pv_wait=True, cluster=2)),
    (256, dict(causal=True, rescale_skip=8.0, cluster=2))])
def test_flash_attention_lane_sums_leave_only_the_row_max_shuffles(head_dim, options, tmp_path, monkeypatch):
    """lane_sums=True: each thread adds up its own share of a row's sum and
    the quad's shares meet once, at the tile's end, so a K/V loop's only
    shuffles are the row max's (two a row: four, as FlashAttention-3's loop
    has), and the steady loop (the shortest) is 8 or more instructions
    shorter (its row sums' shuffles and adds), without spills."""
    import hopper_flash_attention as fa

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    lanes, rows = (min(kv_loops(fa.compile_for_sm90(head_dim, dtype="bf16", lane_sums=lane_sums, **options),
                                tmp_path), key=len) for lane_sums in (True, False))
    assert sum("SHFL" in t for t in lanes) == 4 < sum("SHFL" in t for t in rows)
    assert len(lanes) <= len(rows) - 8 and not any(re.match(r"(LDL|STL)\b", t) for t in lanes)


def test_flash_attention_lane_sums_refusal():
    import hopper_flash_attention as fa

    with pytest.raises(ValueError) as error:
        fa.compile_for_sm90(64, lane_sums="yes")
    assert str(error.value) == "attention: lane_sums must be True or False, got 'yes'"


@pytest.mark.parametrize("causal", [False, True])
def test_flash_attention_late_pv_wait_follows_every_exp2(tmp_path, monkeypatch, causal):
    """With late_pv_wait (head dim 128's default with the lazy rescale) each
    consumer's K/V loop runs all of a block's exp2s before it waits for the
    PV issued before them (WARPGROUP.DEPBAR.LE gsb0, 0x0): ptxas hoists a
    wait that stands alone after the softmax above the exp2s, but not the
    one inside the rescale's branch."""
    import hopper_flash_attention as fa

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    kernel = fa.compile_for_sm90(128, causal=causal, dtype="bf16", rescale_skip=8.0, late_pv_wait=True, cluster=2,
                                 p_16bit=causal)
    events = wgmma_wait_events(kernel, tmp_path)  # QK^T's wait (wait1), PV's (wait0), a run of exp2s
    loops = [i for i, e in enumerate(events) if e == "wait1" and events[i + 1:i + 2] == ["exp2"]]
    assert len(loops) >= 2 and all(events[i + 1:i + 3] == ["exp2", "wait0"] for i in loops), events
    assert "wgmma.wait_group.sync.aligned 0; mul.f32" in kernel.asm["ptx"]


@pytest.mark.parametrize("option, message", [
    (0, "got 0"), (16, "got 16"), ("8", "got '8'"), (-1.0, "got -1.0")])
def test_flash_attention_rescale_skip_refusals(option, message):
    import hopper_flash_attention as fa

    with pytest.raises(ValueError) as error:
        fa.check_rescale_skip(option)
    assert str(error.value) == ("attention: rescale_skip must be True, False or a lazy rescale's threshold in powers "
                                f"of two (0 < threshold <= 15), {message}")
    assert [fa.check_rescale_skip(o) for o in (False, True, 8, 15.0)] == [-1.0, 0.0, 8.0, 15.0]


def test_flash_attention_lazy_rescale_is_a_warp_vote(tmp_path, monkeypatch):
    """The lazy rescale raises a row's max only past the threshold (a compare
    and select of 8 over the old max) and each warp votes on whether any of
    its rows moved, branching around the accumulator's multiplies: 64 of
    them a block at head dim 128 behind one vote per K/V step."""
    import hopper_flash_attention as fa

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    ptx = fa.compile_for_sm90(128, dtype="bf16", rescale_skip=8.0).asm["ptx"]
    plain = fa.compile_for_sm90(128, dtype="bf16").asm["ptx"]
    assert "vote.sync.any.pred" not in plain
    votes = ptx.count("vote.sync.any.pred moved, moved, 0xffffffff;")
    assert votes >= 1 and ptx.count("@!moved bra.uni SKIP;") == votes
    assert re.search(r"add\.f32\s+%r\d+, %r\d+, 0f41000000;", ptx)  # the old max + 8
    block = ptx[ptx.index("vote.sync.any.pred"):]
    assert block[:block.index("SKIP: }")].count("mul.f32") == 64


@pytest.mark.parametrize("head_dim, options", [(128, dict(causal=True)), (256, dict(causal=True, cluster=2))])
def test_flash_attention_l2_hints_as_flashattention3(head_dim, options, tmp_path, monkeypatch):
    """l2_hints=True: the K and V blocks' TMA loads (rank 0's multicast in
    clusters) at L2 evict_last priority, Q's at evict_first, each with its
    own createpolicy; without it no load has a hint."""
    import hopper_flash_attention as fa

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))

    def loads(l2_hints):
        ptx = fa.compile_for_sm90(head_dim, dtype="bf16", l2_hints=l2_hints, **options).asm["ptx"]
        lines = [line.strip() for line in ptx.splitlines()]
        # each hinted load: its asm block's createpolicy (before a multicast's mask), then the copy
        return [(next((p for p in reversed(lines[i - 5:i]) if "createpolicy" in p), ""), line)
                for i, line in enumerate(lines) if re.search(r"cp\.async\.bulk\.tensor\.\dd\.shared", line)]

    hinted, plain = loads(True), loads(False)
    assert len(hinted) == len(plain) and not any("cache_hint" in line for _, line in plain)
    assert all(line.endswith(", %tlx_policy;") for _, line in hinted)
    kv = [line for policy, line in hinted if "L2::evict_last" in policy]
    q = [line for policy, line in hinted if "L2::evict_first" in policy]
    assert len(kv) + len(q) == len(hinted) and kv and q
    assert all(("multicast::cluster" in line) == (options.get("cluster") == 2) for line in kv)
    assert not any("multicast" in line for line in q)


def test_flash_attention_l2_hints_refusal():
    import hopper_flash_attention as fa

    with pytest.raises(ValueError) as error:
        fa.compile_for_sm90(64, l2_hints="yes")
    assert str(error.value) == "attention: l2_hints must be True or False, got 'yes'"


@pytest.mark.parametrize("head_dim, options, diagonal", [(256, {}, 128), (128, dict(cluster=2, tile_order="table"), 256)])
def test_flash_attention_descending_kv_order_loads_down_from_the_diagonal(head_dim, options, diagonal, tmp_path,
                                                                          monkeypatch):
    """kv_order="descending": after a causal tile's diagonal blocks (a
    cluster's, in clusters) the producer loads the block at loop position
    kv_pos from row hi - BLOCK_N - kv_pos, down to the first; ascending, from
    kv_pos - diagonal. The consumers' unmasked loop takes no position. The
    hazard analysis finds nothing in either."""
    import hopper_flash_attention as fa

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile afresh: the analysis runs
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")

    def producer_loop(kv_order):
        ttgir = fa.compile_for_sm90(head_dim, causal=True, kv_order=kv_order, **options).asm["ttgir"]
        producer = ttgir[ttgir.index("ttg.warp_specialize"):ttgir.index("partition0(")]
        loop = re.search(r"scf\.for %kv_pos = %c0_i32 to (%hi\w*) step %c(\d+)_i32", producer)
        return producer, loop.group(1), int(loop.group(2))

    producer, hi, block_n = producer_loop("ascending")
    assert re.search(rf"arith\.subi %kv_pos, %c{diagonal}_i32", producer)
    producer, hi, block_n = producer_loop("descending")
    top = re.search(rf"(%\w+) = arith\.addi {hi}, %c-{block_n}_i32", producer).group(1)
    assert re.search(rf"= arith\.subi {top}, %kv_pos ", producer)
    assert not re.search(r"arith\.subi %kv_pos, %c\d+_i32", producer)


@pytest.mark.parametrize("head_dim, causal, diagonal_first, expected", [
    (256, True, True, "diagonal_first_descending"), (128, True, True, "diagonal_first"),
    (64, True, True, "diagonal_first"), (256, True, False, "ascending"), (256, False, True, "ascending"),
])
def test_flash_attention_default_kv_order(head_dim, causal, diagonal_first, expected):
    """kv_order left at None: descending blocks at head dim 256 where the
    diagonal comes first; never an error (a tile order that cannot descend
    takes ascending)."""
    from hopper_flash_attention_config import block_order

    assert block_order(diagonal_first, None, causal, 128, 128, head_dim) == expected


@pytest.mark.parametrize("options, message", [
    (dict(kv_order="down"), "attention: kv_order must be 'ascending' or 'descending', got 'down'"),
    (dict(kv_order="descending"), "attention: kv_order='descending' orders the K/V blocks after a causal tile's "
                                  "diagonal: it needs causal=True, diagonal_first and tiles of whole K/V blocks"),
    (dict(kv_order="descending", causal=True, diagonal_first=False), "attention: kv_order='descending' orders the "
     "K/V blocks after a causal tile's diagonal: it needs causal=True, diagonal_first and tiles of whole K/V blocks"),
])
def test_flash_attention_kv_order_refusals(options, message):
    import hopper_flash_attention as fa

    with pytest.raises(ValueError) as error:
        fa.compile_for_sm90(128, **options)
    assert str(error.value) == message
