"""CTA clusters (num_ctas > 1) compiled for sm_90 on the CPU: each CTA is a
whole program of one-CTA layouts; tl.program_id(0) is the cluster's; a
multicast TMA load and a remote mbarrier arrive become the PTX that does
them; bad input is a CompilationError at the kernel's line."""
import re

import pytest
import triton
import triton.language as tl

from conftest import expect_compilation_error, jit_from_body, sass_of
from test_hopper_compile import D64, compile_for_sm90, hk

import tlx_alias as tlx

MULTICAST_SIGNATURE = {"desc": D64, "out_ptr": "*fp16", "ranks_ptr": "*i32"}


def ptx_lines(kernel, pattern):
    return [line.strip() for line in kernel.asm["ptx"].splitlines() if re.search(pattern, line)]


def test_multicast_load_reaches_every_cta_of_the_mask():
    kernel = compile_for_sm90(hk.cluster_multicast_copy, MULTICAST_SIGNATURE, dict(B=64, EVICT=""), num_ctas=2)
    assert kernel.metadata.num_ctas == 2
    assert '"ttg.num-ctas" = 1' in kernel.asm["ttgir"]  # one CTA's layouts
    (load, ) = ptx_lines(kernel, r"cp\.async\.bulk\.tensor")
    assert re.fullmatch(r"@%p\d+ cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes"
                        r"\.multicast::cluster \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\], %tlx_mask;", load)
    assert ptx_lines(kernel, "mov.b16 %tlx_mask") == ["mov.b16 %tlx_mask, 3;"]
    assert len(ptx_lines(kernel, r"mov\.u32 %r\d+, %cluster_ctarank;")) == 1
    assert ptx_lines(kernel, "fence.mbarrier_init") == ["fence.mbarrier_init.release.cluster;"]
    assert len(ptx_lines(kernel, r"barrier\.cluster\.(arrive|wait)\.aligned")) == 4


def test_multicast_load_with_an_l2_eviction_policy():
    """The mask, then the policy: the operands' order of the PTX ISA."""
    body = BUF + ("tlx.barrier_expect_bytes(bars[0], 8192)\n"
                  "tlx.async_descriptor_load(desc, buf[0], [0, 0], bars[0], multicast_targets=[0, 1], "
                  "eviction_policy='evict_last')\n"
                  "tlx.barrier_wait(bars[0], 0)\n"
                  "offs = tl.arange(0, 64)\n"
                  "tl.store(out_ptr + offs[:, None] * 64 + offs[None, :], tlx.local_load(buf[0]).to(tl.float32))\n")
    kernel = _compile_cluster_body(body, num_ctas=2)
    (load, ) = ptx_lines(kernel, r"cp\.async\.bulk\.tensor")
    assert re.fullmatch(r"@%p\d+ cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes"
                        r"\.multicast::cluster\.L2::cache_hint \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\], "
                        r"%tlx_mask, %tlx_policy;", load)
    assert ptx_lines(kernel, "createpolicy") == ["createpolicy.fractional.L2::evict_last.b64 %tlx_policy, 1.0;"]
    assert ptx_lines(kernel, "mov.b16 %tlx_mask") == ["mov.b16 %tlx_mask, 3;"]
    assert kernel.asm["cubin"]


def test_program_ids_are_the_clusters():
    """The x program id and count are divided by the cluster size (the
    launcher runs num_ctas CTAs per program along x)."""
    kernel = compile_for_sm90(hk.cluster_multicast_copy, MULTICAST_SIGNATURE, dict(B=64, EVICT=""), num_ctas=2)
    ttgir = kernel.asm["ttgir"]
    pid = re.search(r"(%\S+) = tt\.get_program_id x", ttgir).group(1)
    nprog = re.search(r"(%\S+) = tt\.get_num_programs x", ttgir).group(1)
    for query in (pid, nprog):
        assert re.search(rf"= arith\.divui {re.escape(query)}, %c2_i32", ttgir), query


@pytest.mark.parametrize("empty", ["leader", "threads"])
def test_remote_arrive_maps_the_barrier_into_the_other_cta(empty):
    kernel = compile_for_sm90(hk.cluster_remote_arrive, {"out_ptr": "*i32"}, dict(ROUNDS=3, EMPTY=empty), num_ctas=2)
    mapped = ptx_lines(kernel, "mapa")
    arrives = ptx_lines(kernel, r"mbarrier\.arrive.*shared::cluster")
    assert len(mapped) == len(arrives) == 2 * 3  # one each way a round (ptxas gets the loops unrolled)
    for mapa, arrive in zip(mapped, arrives):
        assert re.fullmatch(r"mapa\.shared::cluster\.u32 %tlx_remote, %r\d+, %r\d+;", mapa)
        # triton's own remote arrive (ttng.arrive_barrier on shared_cluster memory) and CUTLASS's
        # ClusterBarrier::arrive: the default release at CTA scope, no cluster-scope fence
        assert re.fullmatch(r"(@%p\d+ )?mbarrier\.arrive\.shared::cluster\.b64 _, \[%tlx_remote\];", arrive)
    assert ptx_lines(kernel, r"mbarrier\.arrive\.shared::cta") == []  # no arrive stayed local


def test_remote_arrive_has_no_gpu_fence(tmp_path):
    """`mbarrier.arrive.release.cluster` made ptxas put MEMBAR.ALL.GPU, ERRBAR
    and CGAERRBAR right before every remote arrive (in the attention forward's
    producer, at each relayed K/V slot); the default semantics do not."""
    kernel = compile_for_sm90(hk.cluster_remote_arrive, {"out_ptr": "*i32"}, dict(ROUNDS=3, EMPTY="threads"),
                              num_ctas=2)
    sass = [line for line in sass_of(kernel, tmp_path).splitlines() if re.search(r"/\*[0-9a-f]+\*/", line)]
    remote = [i for i, line in enumerate(sass) if "SYNCS.ARRIVE.TRANS64.RED" in line]
    assert len(remote) == 2 * 3
    for i in remote:
        assert not any(re.search(r"MEMBAR\.ALL\.GPU|ERRBAR", line) for line in sass[i - 4:i]), sass[i - 4:i + 1]


def _compile_cluster_body(body, num_ctas=2):
    fn = jit_from_body(body, "desc, out_ptr", {"tlx": tlx, "tl": tl, "triton": triton})
    return compile_for_sm90(fn, {"desc": D64, "out_ptr": "*fp32"}, {}, num_ctas=num_ctas)


BUF = "buf = tlx.local_alloc((64, 64), tl.float16, 1)\nbars = tlx.alloc_barriers(1)\n"
ERRORS = {
    "multicast_without_clusters": (
        BUF + "tlx.async_descriptor_load(desc, buf[0], [0, 0], bars[0], multicast_targets=[0, 1])", 1,
        "async_descriptor_load: multicast_targets needs CTA clusters: launch the kernel with num_ctas > 1"),
    "multicast_rank_outside_cluster": (
        BUF + "tlx.async_descriptor_load(desc, buf[0], [0, 0], bars[0], multicast_targets=[0, 2])", 2,
        r"multicast_targets must be constexpr CTA ranks in \[0, 2\), got 2"),
    "multicast_dynamic_rank": (
        BUF + "tlx.async_descriptor_load(desc, buf[0], [0, 0], bars[0], multicast_targets=[tlx.cluster_cta_rank()])",
        2, r"multicast_targets must be constexpr CTA ranks in \[0, 2\), got <triton.language.core.tensor"),
    "two_ctas": (BUF + "tlx.async_descriptor_load(desc, buf[0], [0, 0], bars[0], two_ctas=True)", 2,
                 "two_ctas is Blackwell's cta_group::2; tlx_alias compiles Hopper clusters"),
    "remote_arrive_without_clusters": (BUF + "tlx.barrier_arrive(bars[0], remote_cta_rank=1)", 1,
                                       "barrier_arrive: remote_cta_rank needs CTA clusters: launch the kernel "
                                       "with num_ctas > 1"),
    "remote_rank_outside_cluster": (BUF + "tlx.barrier_arrive(bars[0], remote_cta_rank=3)", 2,
                                    r"barrier_arrive: remote_cta_rank must be a CTA rank in \[0, 2\), got 3"),
    "cluster_barrier_without_clusters": ("tlx.cluster_barrier()", 1,
                                         "cluster_barrier needs CTA clusters: launch the kernel with num_ctas > 1"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_cluster_input_is_a_compilation_error_at_the_line(name):
    body, num_ctas, message = ERRORS[name]
    expect_compilation_error(lambda b: _compile_cluster_body(b, num_ctas), body, "ValueError", message)


def test_rank_and_size_without_clusters():
    body = ("offs = tl.arange(0, 2)\n"
            "tl.store(out_ptr + offs, tl.where(offs == 0, tlx.cluster_cta_rank(), tlx.cluster_size_1d()) + 0.0)")
    kernel = _compile_cluster_body(body, num_ctas=1)
    assert "cluster_ctarank" not in kernel.asm["ptx"]


def test_max_active_clusters_asks_the_driver_for_the_compiled_kernel(monkeypatch):
    """tlx.max_active_clusters loads the kernel (_init_handles) and asks
    triton's driver for cuOccupancyMaxActiveClusters with the kernel's
    function, shared memory and num_ctas (a stand-in driver here: no GPU)."""
    from triton.runtime import driver

    kernel = compile_for_sm90(hk.cluster_multicast_copy, MULTICAST_SIGNATURE, dict(B=64, EVICT=""), num_ctas=2)
    asked = []

    class Utils:
        def cuOccupancyMaxActiveClusters(self, function, shared, cluster):
            asked.append((function, shared, cluster))
            return 66

    class Driver:
        utils = Utils()

    monkeypatch.setattr(type(kernel), "_init_handles", lambda self: setattr(self, "function", "loaded"))
    monkeypatch.setattr(driver, "_active", Driver())
    assert tlx.max_active_clusters(kernel) == 66
    assert asked == [("loaded", kernel.metadata.shared, 2)]


def test_max_active_clusters_wants_a_compiled_kernel():
    with pytest.raises(TypeError, match=r"^max_active_clusters: expected a compiled kernel \(kernel\.warmup\(\.\.\.\)'s "
                                        r"result\), got JITFunction$"):
        tlx.max_active_clusters(hk.cluster_multicast_copy)


def test_the_triton_internals_max_active_clusters_uses_are_there():
    """What tlx_alias/_triton/launch.py relies on, in this triton."""
    import inspect

    from triton.backends.nvidia.driver import CudaUtils
    from triton.compiler.compiler import CompiledKernel

    assert "self.cuOccupancyMaxActiveClusters = mod.cuOccupancyMaxActiveClusters" in inspect.getsource(CudaUtils)
    assert "self.function" in inspect.getsource(CompiledKernel._init_handles)


def test_remote_arrive_numbers_restart_with_each_compile():
    """The numbers that pair a remote arrive with its rank op restart with
    each compile: two kernels of the same shape get the same ones."""
    def numbers(rounds):
        kernel = compile_for_sm90(hk.cluster_remote_arrive, {"out_ptr": "*i32"}, dict(ROUNDS=rounds, EMPTY="leader"),
                                  num_ctas=2)
        return re.findall(r"tlx\.remote_arrive = (\d+) : i32", kernel.asm["ttgir"])

    first = numbers(4)
    assert len(first) == 2 and numbers(5) == first
