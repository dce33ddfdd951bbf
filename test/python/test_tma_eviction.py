"""A TMA copy's L2 eviction policy, compiled for sm_90 on the CPU: triton
3.7's and 3.8's TMA lowering refuses one, so tlx-lower-marked-ops writes it
into the PTX (`.L2::cache_hint` and a `createpolicy` operand) for loads,
stores and reduces; ptxas takes it."""
import re

import pytest

from test_hopper_compile import BUF, _compile_body

TMA_LOAD_AND_USE = ("tlx.barrier_expect_bytes(bars[0], 8192)\n"
                    "tlx.async_descriptor_load(desc, buf[0], [0, 0], bars[0]{hint})\n"
                    "tlx.barrier_wait(bars[0], 0)\n"
                    "offs = tl.arange(0, 64)\n"
                    "tl.store(out_ptr + offs[:, None] * 64 + offs[None, :], tlx.local_load(buf[0]).to(tl.float32))\n")


@pytest.mark.parametrize("policy", ["evict_last", "evict_first"])
def test_tma_load_takes_an_l2_eviction_policy(policy):
    """Triton's TMA lowering refuses an eviction policy; tlx-lower-marked-ops
    gives the copy `.L2::cache_hint` with a createpolicy of the whole line
    at that priority (ptxas takes it: the kernel has a cubin)."""
    kernel = _compile_body(BUF + TMA_LOAD_AND_USE.format(hint=f", eviction_policy='{policy}'"))
    ptx = [line.strip() for line in kernel.asm["ptx"].splitlines()]
    assert [line for line in ptx if "createpolicy" in line] == [
        f"createpolicy.fractional.L2::{policy}.b64 %tlx_policy, 1.0;"]
    (load, ) = [line for line in ptx if "cp.async.bulk.tensor" in line]
    assert re.fullmatch(r"@%p\d+ cp\.async\.bulk\.tensor\.2d\.shared::cta\.global\.mbarrier::complete_tx::bytes"
                        r"\.L2::cache_hint \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\], %tlx_policy;", load)
    assert kernel.asm["cubin"]


@pytest.mark.parametrize("hint", ["", ", eviction_policy='evict_normal'"])
def test_tma_load_without_a_policy_has_no_cache_hint(hint):
    kernel = _compile_body(BUF + TMA_LOAD_AND_USE.format(hint=hint))
    assert "cache_hint" not in kernel.asm["ptx"] and "createpolicy" not in kernel.asm["ptx"]


STORE = ("buf = tlx.local_alloc((64, 64), tl.float16, 1)\n"
         "offs = tl.arange(0, 64)\n"
         "tlx.local_store(buf[0], tl.load(out_ptr + offs[:, None] * 64 + offs[None, :]).to(tl.float16))\n"
         "tlx.fence_async_shared()\n"
         "tlx.async_descriptor_store(desc, buf[0], [0, 0]{hint})\n"
         "tlx.async_descriptor_store_wait(0)\n")


@pytest.mark.parametrize("reduce, opcode", [("", r"cp\.async\.bulk\.tensor"),
                                            ("add", r"cp\.reduce\.async\.bulk\.tensor")])
def test_tma_store_and_reduce_take_an_l2_eviction_policy(reduce, opcode):
    """A store's (and a reduce's) hint goes after `.bulk_group`, its policy last."""
    kernel = _compile_body(STORE.format(hint=f", eviction_policy='evict_first', store_reduce='{reduce}'"))
    ptx = [line.strip() for line in kernel.asm["ptx"].splitlines()]
    assert [line for line in ptx if "createpolicy" in line] == [
        "createpolicy.fractional.L2::evict_first.b64 %tlx_policy, 1.0;"]
    (store, ) = [line for line in ptx if "bulk.tensor" in line]
    assert re.fullmatch(rf"@%p\d+ {opcode}\.2d\.global\.shared::cta(\.add)?\.bulk_group\.L2::cache_hint "
                        r"\[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\], %tlx_policy;", store)
    assert kernel.asm["cubin"]


def test_tma_store_refuses_an_unknown_policy():
    from conftest import expect_compilation_error

    expect_compilation_error(_compile_body, STORE.format(hint=", eviction_policy='first'"), "ValueError",
                             "async_descriptor_store: eviction_policy must be 'evict_normal', 'evict_first' or "
                             r"'evict_last' \(or ''\), got 'first'")
