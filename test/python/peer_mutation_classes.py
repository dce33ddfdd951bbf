"""The classes of test_hazards_mutations_peer.py's mutants: per (tutorial,
kernel), (partition, op, ordinal of that op in the partition) -> (class,
why). "partition*" is either consumer replica (same ops, same order); the
named-barrier ops differ between the two (consumer 0 syncs on 9 and arrives
on 10, consumer 1 the other way round). Keys and reasons describe the
tutorials' synchronization; none of their text is copied here.

Terms: a "slot" is one buffer of a ring; K/V/Q slots are the attention
tutorials' tiles; "staging copy" is the shared-memory copy triton makes for
a tensor-descriptor store (`desc.store`): an initialized local_alloc, fenced,
stored by TMA and waited for (the two C halves of one partition get the same
bytes from triton's allocator)."""
from mutation_tally import ARRIVE_HANGS, BENIGN, HANG, RACE
from tlx_alias._triton_version import running_triton_at_least

BOTH_ARRIVE = "the barrier counts both consumers' arrivals: with one missing its phase never completes (a hang)"
NAMED_HANGS = "the other consumer's sync on that named barrier never completes: a hang"
UNFENCED = ("the TMA store reads the staging copy through the async proxy while the copy's generic-proxy "
            "writes are not fenced")
NEXT_HALF = ("the second C half's staging copy (the same bytes) is written while the first half's TMA store "
             "may still read them")
NEXT_TILE = ("the next tile's first staging copy (the same bytes) is written while this TMA store may still "
             "read them (or, at one tile per program, the kernel ends while it reads)")
AT_END = "the kernel ends while the TMA store may still read its staging copy (the CTA's shared memory is freed)"
REGISTER = " (the accumulator read before it retires is a register hazard, outside this analysis)"
ISSUE_ORDER = ("the named barriers order only the two consumers' wgmma issue; each consumer waits for its "
               "K and V blocks itself")
QK_RETIRED = ("for shared memory: this block's QK^T is retired by the block's wait for the previous PV, before "
              "the previous V slot is released, and the producer waits for that release before it refills "
              "this K slot" + REGISTER)
LAST_PV = ("for shared memory: nothing refills the last V slot (one tile per program: no loads after the "
           "last block)" + REGISTER)
STAGED_STORES = {
    ("partition*", "fence", 0): (RACE, UNFENCED),
    ("partition*", "fence", 1): (RACE, UNFENCED),
    ("partition*", "store_wait", 0): (RACE, NEXT_HALF),
    ("partition*", "store_wait", 1): (RACE, NEXT_TILE),
}
O_STORE = {("partition*", "fence", 0): (RACE, UNFENCED), ("partition*", "store_wait", 0): (RACE, AT_END)}

CP_ASYNC_GEMM = {
    ("main", "async_wait", 0):
    (RACE, "the wgmma reads a slot whose cp.async copies (the group committed a step before) may still write it"),
    ("main", "dot_wait", 0):
    (RACE, "the prefetch refills the slot the previous step's wgmma may still read"),
    ("main", "dot_wait", 1): (BENIGN, "for shared memory: nothing writes the slots after the loop" + REGISTER),
}
if running_triton_at_least(3, 9):
    # triton 3.9's fence insertion puts a proxy fence before the K loop (3.7
    # and 3.8 put none): every cp.async it could concern is issued after it,
    # so it orders none of them; the loop's async_wait orders the slots.
    CP_ASYNC_GEMM[("main", "fence", 0)] = (
        BENIGN, "triton's fence before the loop precedes every cp.async copy; the async_wait orders the slots")

PINGPONG_GEMM_COMMON = {
    ("default", "wait", 0):
    (RACE, "the TMA loads refill a slot the wgmma of its previous round (either consumer's) may still read"),
    ("partition*", "dot_wait", 0):
    (RACE, "the previous step's wgmma may still read the slot released to the producer"),
    ("partition*", "dot_wait", 1): (RACE, "the tile's last wgmma may still read its slot when it is released"),
    **STAGED_STORES,
}
SKIPS_AHEAD = ("the consumer starts a tile before the other one has waited for the previous tile's slots: "
               "its waits, named by parity only, can pass on a phase two rounds old while its round's loads "
               "are still to come")

CLASSES = {
    ("hopper_gemm_pipelined", "matmul_kernel_pipelined_hopper"): CP_ASYNC_GEMM,
    ("hopper_gemm_ws", "_skinny_matmul_kernel"): CP_ASYNC_GEMM,
    ("hopper_gemm_ws", "_skinny_tma_kernel"): {
        ("main", "wait", 0): (RACE, "the wgmma reads the A slot while its TMA load may still write it"),
        ("main", "wait", 1): (RACE, "the wgmma reads the B slot while its TMA load may still write it"),
        ("main", "dot_wait", 0): (RACE, "the next TMA loads refill the slots the wgmma may still read"),
    },
    ("hopper_gemm_ws", "matmul_kernel_tlx_ws"): {
        ("default", "wait", 0):
        (RACE, "the load refills consumer 0's A slot while its wgmma of the previous round may still read it"),
        ("default", "wait", 1):
        (RACE, "the load refills the shared B slot while the consumers' wgmmas of the previous round may read it"),
        ("default", "wait", 2):
        (BENIGN, "the wait for the B slot's release just before counts consumer 1's arrival, made after its "
         "wgmma of that round (reading its A slot too) retired"),
        ("partition*", "wait", 0): (RACE, "the wgmma reads the consumer's A slot while its TMA load may write it"),
        ("partition*", "wait", 1): (RACE, "the wgmma reads the B slot while its TMA load may still write it"),
        ("partition*", "dot_wait", 0):
        (RACE, "the consumer releases its A slot and the B slot while its wgmma may still read them"),
        ("partition*", "arrive", 0): (HANG, ARRIVE_HANGS),
        ("partition*", "arrive", 1): (HANG, BOTH_ARRIVE),
        **STAGED_STORES,
    },
    ("hopper-persistent-gemm-ws-pingpong", "matmul_kernel_tlx_ws_persistent"): {
        **PINGPONG_GEMM_COMMON,
        ("partition0", "bar.sync", 0): (RACE, SKIPS_AHEAD),
        ("partition1", "bar.sync", 0): (RACE, SKIPS_AHEAD),
        ("partition*", "wait", 0): (RACE, "the tile's first wgmma reads its slot while the TMA loads may write it"),
        ("partition*", "wait", 1): (RACE, "the K loop's wgmma reads its slot while the TMA loads may write it"),
        ("partition*", "arrive", 0): (HANG, ARRIVE_HANGS),
        ("partition*", "arrive", 1): (HANG, ARRIVE_HANGS),
        ("partition0", "bar.arrive", 0): (HANG, NAMED_HANGS),
        ("partition1", "bar.arrive", 0):
        (HANG, "consumer 0's first sync then needs consumer 1's arrival after its first tile, which waits for "
         "consumer 0: a deadlock"),
        ("partition1", "bar.arrive", 1): (HANG, NAMED_HANGS),
    },
    ("hopper-persistent-gemm-ws-pingpong", "matmul_kernel_tlx_ws_persistent mbarrier"): {
        **PINGPONG_GEMM_COMMON,
        ("partition*", "wait", 0): (RACE, SKIPS_AHEAD + " (the turn barrier's wait)"),
        ("partition*", "wait", 1): (RACE, "the tile's first wgmma reads its slot while the TMA loads may write it"),
        ("partition*", "wait", 2): (RACE, "the K loop's wgmma reads its slot while the TMA loads may write it"),
        ("partition*", "arrive", 0): (HANG, ARRIVE_HANGS),
        ("partition*", "arrive", 1): (HANG, "the other consumer's turn never comes: its wait never completes"),
        ("partition*", "arrive", 2): (HANG, ARRIVE_HANGS),
        ("partition*", "wait", 3):
        (BENIGN, "the epilogue turn orders only the consumers' C stores, each from its own partition's staging "
         "copies (live at once: triton places them apart)"),
        ("partition*", "arrive", 3): (HANG, ARRIVE_HANGS),
    },
    ("hopper-persistent-gemm-ws-cooperative", "matmul_kernel_tlx_ws_persistent"): {
        ("default", "wait", 0):
        (RACE, "the load refills consumer 0's A slot while its wgmma of the previous round may still read it"),
        ("default", "wait", 1):
        (RACE, "the load refills the shared B slot while the consumers' wgmmas of the previous round may read it"),
        ("default", "wait", 2):
        (BENIGN, "the wait for the B slot's release just before counts consumer 1's arrival, made after the "
         "wgmma wait that retired its A read of that round too"),
        ("partition*", "wait", 0): (RACE, "the tile's first wgmma reads the A slot while its TMA load may write it"),
        ("partition*", "wait", 1): (RACE, "the tile's first wgmma reads the B slot while its TMA load may write it"),
        ("partition*", "wait", 2): (RACE, "the K loop's wgmma reads the A slot while its TMA load may write it"),
        ("partition*", "wait", 3): (RACE, "the K loop's wgmma reads the B slot while its TMA load may write it"),
        ("partition*", "dot_wait", 0):
        (RACE, "the previous step's wgmma may still read the A and B slots released to the producer"),
        ("partition*", "arrive", 0): (HANG, ARRIVE_HANGS),
        ("partition*", "arrive", 1): (HANG, BOTH_ARRIVE),
        ("partition*", "dot_wait", 1): (RACE, "the tile's last wgmma may still read its slots when released"),
        ("partition*", "arrive", 2): (HANG, ARRIVE_HANGS),
        ("partition*", "arrive", 3): (HANG, BOTH_ARRIVE),
        **STAGED_STORES,
    },
    ("hopper_fa_ws", "_attn_fwd_ws"): {
        ("default", "wait", 0): (RACE, "the K load refills a slot the consumers' QK^T of its previous round may read"),
        ("default", "wait", 1): (RACE, "the V load refills a slot the consumers' PV of its previous round may read"),
        ("partition*", "wait", 0): (RACE, "QK^T reads Q while its TMA load may still write it"),
        ("partition*", "wait", 1): (RACE, "QK^T reads K while its TMA load may still write it"),
        ("partition*", "dot_wait", 0): (RACE, "QK^T may still read the K slot when it is released"),
        ("partition*", "arrive", 0): (HANG, BOTH_ARRIVE),
        ("partition*", "wait", 2): (RACE, "PV reads V while its TMA load may still write it"),
        ("partition*", "dot_wait", 1): (RACE, "PV may still read the V slot when it is released"),
        ("partition*", "arrive", 1): (HANG, BOTH_ARRIVE),
        **O_STORE,
    },
}

# The pipelined attention tutorials: QK^T of block j is issued before PV of
# block j - 1; "wait" ordinals: Q, first K, K in the loop, V in the loop,
# last V.
PIPELINED_ATTENTION = {
    ("default", "wait", 0): (RACE, "the K load refills a slot the consumers' QK^T of its previous round may read"),
    ("default", "wait", 1): (RACE, "the V load refills a slot the consumers' PV of its previous round may read"),
    ("partition*", "wait", 0): (RACE, "QK^T reads Q while its TMA load may still write it"),
    ("partition*", "dot_wait", 0): (RACE, "the first QK^T may still read its K slot when it is released"),
    ("partition*", "arrive", 0): (HANG, BOTH_ARRIVE),
    ("partition*", "wait", 3): (RACE, "PV reads the previous block's V while its TMA load may still write it"),
    ("partition*", "dot_wait", 1): (BENIGN, QK_RETIRED),
    ("partition*", "arrive", 1): (HANG, BOTH_ARRIVE),
    ("partition*", "dot_wait", 2): (RACE, "the previous block's PV may still read its V slot when it is released"),
    ("partition*", "arrive", 2): (HANG, BOTH_ARRIVE),
    ("partition*", "wait", 4): (RACE, "the last PV reads V while its TMA load may still write it"),
    ("partition*", "dot_wait", 3): (BENIGN, LAST_PV),
    ("partition*", "arrive", 3): (HANG, BOTH_ARRIVE),
    **O_STORE,
}
CONSUMER0_K = ("consumer 0's sync on named barrier 9 follows consumer 1's previous block only: QK^T reads K "
               "while its TMA load may still write it")
CONSUMER0_K_FIRST = ("consumer 0 issues QK^T after its sync on named barrier 9, whose generation pairs with "
                     "consumer 1's arrival after consumer 1 waited for the same K block")
CONSUMER1_K = ("consumer 1 issues QK^T after its sync on named barrier 10, which pairs with consumer 0's "
               "arrival after consumer 0 waited for the same K block")
PINGPONG_NAMED = {
    ("partition0", "bar.sync", 0): (BENIGN, ISSUE_ORDER),
    ("partition0", "bar.sync", 1): (BENIGN, ISSUE_ORDER),
    ("partition1", "bar.sync", 0): (BENIGN, ISSUE_ORDER),
    ("partition1", "bar.sync", 1): (BENIGN, ISSUE_ORDER),
    ("partition0", "bar.arrive", 0): (HANG, NAMED_HANGS),
    ("partition0", "bar.arrive", 1): (HANG, NAMED_HANGS),
    ("partition1", "bar.arrive", 0):
    (HANG, "consumer 0's first sync then needs consumer 1's arrival after its first QK^T, which waits for "
     "consumer 0: a deadlock"),
    ("partition1", "bar.arrive", 1): (HANG, NAMED_HANGS + " (at two or more blocks)"),
    ("partition1", "bar.arrive", 2): (HANG, NAMED_HANGS),
    ("partition1", "wait", 1): (BENIGN, CONSUMER1_K),
    ("partition1", "wait", 2): (BENIGN, CONSUMER1_K),
    ("partition0", "wait", 2): (RACE, CONSUMER0_K),
}

CLASSES.update({
    ("hopper_fa_ws_pipelined", "_attn_fwd_ws_pipelined"): {
        **PIPELINED_ATTENTION,
        ("partition*", "wait", 1): (RACE, "the first QK^T reads K while its TMA load may still write it"),
        ("partition*", "wait", 2): (RACE, "QK^T reads K while its TMA load may still write it"),
    },
    ("hopper_fa_ws_pipelined_pingpong", "_attn_fwd_ws_pipelined_pingpong"): {
        **PIPELINED_ATTENTION,
        **PINGPONG_NAMED,
        ("partition0", "wait", 1): (BENIGN, CONSUMER0_K_FIRST),
    },
    ("hopper_fa_ws_pipelined_pingpong_persistent", "_attn_fwd_ws_pipelined_pingpong_persistent"): {
        **PIPELINED_ATTENTION,
        **PINGPONG_NAMED,
        # The producer per tile: Q of consumer 0, K, Q of consumer 1, V,
        # then K and V per further block.
        ("default", "wait", 0):
        (RACE, "the next tile's Q load overwrites consumer 0's Q slot while its QK^T may still read it"),
        ("default", "wait", 1): (RACE, "the K load refills a slot the consumers' QK^T of its previous round may read"),
        ("default", "wait", 2):
        (RACE, "the next tile's Q load overwrites consumer 1's Q slot while its QK^T may still read it"),
        ("default", "wait", 3):
        (BENIGN, "before it the producer waited for both consumers' Q releases of the previous tile, each made "
         "after the wgmma waits that retired the PV that read this V slot last"),
        ("default", "wait", 4): (RACE, "the K load refills a slot the consumers' QK^T of its previous round may read"),
        ("default", "wait", 5): (RACE, "the V load refills a slot the consumers' PV of its previous round may read"),
        ("partition0", "wait", 1): (RACE, CONSUMER0_K.replace("block only", "block (or tile) only")),
        ("partition*", "dot_wait", 3):
        (BENIGN, "every QK^T (the wgmmas that read Q) is retired already: the wait before the Q release "
         "retires nothing that reads Q"),
        ("partition*", "arrive", 3): (HANG, "the producer's Q load for the next tile never starts (at two or more "
                                      "tiles per program)"),
        ("partition*", "dot_wait", 4):
        (RACE, "the last PV may still read its V slot when it is released (the next tile's loads refill it)"),
        ("partition*", "arrive", 4): (HANG, BOTH_ARRIVE),
        ("partition*", "store_wait", 0): (RACE, NEXT_TILE.replace("first staging copy", "staging copy of O")),
    },
})
