#ifndef TLX_PASSES_TD
#define TLX_PASSES_TD

include "mlir/Pass/PassBase.td"

def TLXStorageAliasLowering : Pass<"tlx-storage-alias-lowering", "mlir::ModuleOp"> {
  let summary = "Size, lay out and materialize storage alias specs";
  let description = [{
    Lowers every `tlx.storage_alias_spec` and its allocations, in four steps
    (one file each):

    1. **sizes**: a spec needs the largest `num * bytes-per-buffer` of its
       allocations, or `num * size(tree)` with a `tlx.set_buffer_overlap`
       (`shared` = max of children, `distinct` = sum of aligned children).
       An explicit size smaller than that is an error; a larger one is kept
       as padding. A spec without allocations is removed with a warning.
    2. **offsets**: each buffer index gets `bytes_between_buffers = size /
       num`; `shared` children start together, `distinct` children follow
       each other, each aligned to what its layout needs. Offsets live in
       memory, not in IR attributes.
    3. **materialize**: each spec becomes one `ttg.local_alloc` of `<Nxi8>`
       (smem) or one `ttng.tmem_alloc` (tmem); each allocation becomes a
       `tlx.local_alias` of it with the buffer dimension expanded to the
       smallest count that reaches its last buffer.
    4. **rewrite accesses**: every `ttg.memdesc_index` reaching an expanded
       view (through reinterprets, aliases, warp_specialize captures and
       control flow) indexes `scale * i + offset_slots`.

    Views are exact by default (`exact-views`, what triton 3.8 accepts; the
    same layouts on every triton): every buffer starts at a multiple of its
    own size (its alignment is its size), the storage is a multiple of every
    buffer, and each view spans the whole storage (`N / bytes-per-buffer`
    buffers), so that every `ttg.memdesc_reinterpret` keeps the logical
    size; a placement that cannot be expressed so is an error. A spec
    holding padded shared layouts cannot be expressed so: it keeps packed
    views where the triton verifies them (3.7) and is an error under 3.8.
    With `exact-views=false` (triton 3.7 only), buffers are packed at their
    layouts' alignment and reached through byte slots where needed.

    With `memory-map=<file>`, the layout of every spec (size, and each
    view's offset, stride, buffer size and expanded shape) is appended to
    the file as one JSON object per line.
  }];
  let options = [
    Option<"memoryMap", "memory-map", "std::string", /*default=*/"\"\"",
           "Append each spec's layout to this file (JSON lines)">,
    Option<"exactViews", "exact-views", "bool", /*default=*/"true",
           "Only views triton 3.8 accepts: each buffer at a multiple of its own "
           "size, each reinterpret of the whole allocation (off: packed views, "
           "which only triton 3.7 verifies)">,
    Option<"checkTargetMemory", "check-target-memory", "bool", /*default=*/"true",
           "Refuse a spec larger than the target's shared memory (ttg.target); "
           "off: lay out trees of any size (the layout engine's own tests)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TLXRewriteLocalAlias : Pass<"tlx-rewrite-local-alias", "mlir::ModuleOp"> {
  let summary = "Turn tlx.local_alias views into ttg.memdesc_reinterpret";
  let description = [{
    Every chain of `tlx.local_alias` views is rooted at one `ttg.local_alloc`
    (or `ttng.tmem_alloc`). The root is replaced by one allocation large and
    aligned enough for every view, and each view becomes a
    `ttg.memdesc_reinterpret` of it, so that Triton's allocator, barrier
    analysis and LLVM lowering only see stock ops.

    With `exact-views` (triton 3.8's rule: a reinterpret keeps the logical
    size and never starts from a subview) the base is a byte allocation
    `(N/G) x G x i8` sized to a multiple of every view's buffer, and each
    view is widened to `(N/B) x ...` of its buffers before it is
    reinterpreted; its indices stay as they were.
  }];
  let options = [
    Option<"exactViews", "exact-views", "bool", /*default=*/"true",
           "Only views triton 3.8 accepts: each buffer at a multiple of its own "
           "size, each reinterpret of the whole allocation (off: packed views, "
           "which only triton 3.7 verifies)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TLXConvertLocalMemory : Pass<"tlx-convert-local-memory", "mlir::ModuleOp"> {
  let summary = "Give tlx.local_load/local_store the layouts of their neighbours";
  let description = [{
    Runs right after Triton's `convert-triton-to-tritongpu`, which has no
    patterns for memory ops and leaves layout-less tensors around them:

    * `tlx.local_load` becomes a `ttg.local_load` producing the encoding its
      converted users (`ttg.convert_layout` or unrealized casts) ask for, or
      Triton's default blocked layout when nobody asks;
    * `tlx.local_store` becomes a `ttg.local_store` of the encoded value that
      the conversion left behind an unrealized cast (the plugin turns on the
      conversion's `enable-source-remat` so that it does);
    * `tlx.async_load` becomes a `ttg.async_copy_global_to_local` of the
      encoded pointers (and mask, other).

    The casts it resolves are erased; none are left for Triton's later
    passes.
  }];
}

def TLXConvertMMA : Pass<"tlx-convert-mma", "mlir::ModuleOp"> {
  let summary = "Turn tlx.async_dot/async_dot_wait into Triton's wgmma ops";
  let description = [{
    Runs right after Triton's `convert-triton-to-tritongpu`. Each
    `tlx.async_dot` becomes `ttng.warp_group_dot {isAsync = true}` whose
    accumulator has the Hopper MMA layout Triton itself would choose
    (`#ttg.nvidia_mma` version 3: instruction shape from the tile and input
    type, warps per CTA from the warps that run it, partition-aware), with a
    register A operand in the matching `#ttg.dot_op` layout. Each
    `tlx.async_dot_wait` becomes `ttng.warp_group_dot_wait` of the encoded
    inputs. Operands are brought in and results handed out through
    `ttg.convert_layout`, as Triton's AccelerateMatmul does for `tt.dot`, so
    its RemoveLayoutConversions cleans them up the same way.
  }];
}

def TLXConvertTMA : Pass<"tlx-convert-tma", "mlir::ModuleOp"> {
  let summary = "Turn tlx TMA copies into Triton's, giving descriptors the buffer layout";
  let description = [{
    Runs right after Triton's `convert-triton-to-tritongpu`.
    `tlx.async_descriptor_load` becomes `ttng.async_tma_copy_global_to_local`
    and `tlx.async_descriptor_store` `ttng.async_tma_copy_local_to_global`
    (`ttng.async_tma_reduce` of its `reduce_kind`, when it has one).
    Triton requires the descriptor's block layout to equal the buffer's, so
    the descriptor gets the buffer's layout where it comes from: the kernel
    argument (and function type), a `tt.make_tensor_descriptor`, and every
    `ttg.warp_specialize` capture in between. A descriptor used with two
    layouts, or one that comes from elsewhere (e.g. a loop-carried value),
    is an error.
  }];
}

def TLXConvertAsyncWaits : Pass<"tlx-convert-async-waits", "mlir::ModuleOp"> {
  let summary = "Turn tlx.async_load_wait_group into ttg.async_wait, keeping its count";
  let description = [{
    Runs right after Triton's software pipeliner, which recomputes the count
    of every `ttg.async_wait` from its tokens (a wait without tokens would
    become `num = 0`). Each `tlx.async_load_wait_group {pendings = N}`
    becomes `ttg.async_wait {num = N}` with the same tokens.
  }];
}

def TLXDotOperandsInPlace : Pass<"tlx-dot-operands-in-place", "mlir::ModuleOp"> {
  let summary = "Let wgmma read a tlx buffer instead of a copy of it";
  let description = [{
    `tl.dot(tlx.local_load(a), tlx.local_load(b))` makes triton load `b` to
    registers and store it again into an NVMMA buffer of its own
    (`ttg.local_alloc(ttg.local_load(%view))`) for `ttng.warp_group_dot`.
    When `%view` already has that buffer's shape, element type, layout and
    memory space, and nothing may write shared memory between the load and
    the dot, the dot reads `%view` directly: no copy, no extra shared
    memory. A `ttng.fence_async_shared` stays in front of each such dot (the
    view's writers use the generic proxy, wgmma the async one). Runs right
    before triton's own fence insertion.
  }];
}

def TLXSyncBeforeLeaderArrive : Pass<"tlx-sync-before-leader-arrive", "mlir::ModuleOp"> {
  let summary = "Sync the warp group before the thread that arrives on an mbarrier for it";
  let description = [{
    Runs on the LLVM dialect right after `convert-triton-gpu-to-llvm` (which
    runs triton's barrier analysis), before the warp-specialize lowering
    turns `nvvm.barrier0` into each partition's named barrier. Triton lowers
    `ttng.arrive_barrier` to one arrive by thread 0 of its warp group
    (`@$0 mbarrier.arrive.shared::cta.b64 _, [$1]`); this pass puts an
    `nvvm.barrier0` in front of each, so the arrive follows the whole group's
    work whether or not the barrier analysis saw a shared-memory hazard there
    (a `bar.sync` per arrive, as the peer's lowering emits). Where the
    analysis had put a barrier already, the second one changes how ptxas
    schedules the block: the arrive stays after the work that follows it in
    the source instead of pulling later `wgmma.wait_group`s up with it (in
    a flash-attention consumer, the wait for P@V moved above the softmax
    that should overlap it).
  }];
}

def TLXThreadArrivesAsExpects : Pass<"tlx-thread-arrives-as-expects", "mlir::ModuleOp"> {
  let summary = "Hide every-thread mbarrier arrives from triton's barrier analysis";
  let description = [{
    Runs on TTGIR right before `convert-triton-gpu-to-llvm`. An arrive on a
    warp barrier (`tlx.alloc_warp_barrier`) is a `ttng.arrive_barrier`
    carrying `tlx.arrive_per_thread = N`: every thread arrives N times, so
    each releases its own accesses and no thread waits for another. Triton
    knows only leader arrives: its barrier analysis takes every
    `ttng.arrive_barrier` for a write of all shared memory and puts a
    `bar.sync` of the warp group in front of it and of the next shared-memory
    access. This pass rewrites each such arrive as a zero-byte
    `ttng.barrier_expect` (its predicate kept), an op that analysis treats
    as touching its mbarrier only (triton 3.7; 3.8's and 3.9's still put one
    `bar.sync` before it, where a leader arrive gets two), and marks its
    location (a `FusedLoc` whose metadata is `{tlx.arrive_per_thread = N}`);
    `tlx-lower-thread-arrives` makes it an arrive of every thread again.
  }];
}

def TLXUnchainedWaitsAsExpects : Pass<"tlx-unchained-waits-as-expects", "mlir::ModuleOp"> {
  let summary = "Hide a ring consumer's full-barrier waits from triton's chain-of-waits bar.sync";
  let description = [{
    Runs on TTGIR right before `tlx-thread-arrives-as-expects`. Triton's
    barrier analysis puts a `bar.sync` of the warp group between two
    `ttng.wait_barrier`s on one mbarrier allocation, lest a warp fall a
    whole phase behind the others and wait for a phase that has passed: in
    a consumer's K/V loop, one a block. No warp can fall behind where,
    after the wait in its block, the task arrives with every thread (a warp
    barrier's arrive, unpredicated) on the same slot of another allocation
    (the ring's empty barrier), and every op of another task that completes
    a phase of the waited allocation (arrive, expect, TMA load) follows, in
    its block, a wait on that empty barrier at the same slot: the slot is
    refilled only once every thread has passed the wait. Such an
    unpredicated wait becomes a zero-byte `ttng.barrier_expect` whose
    predicate is the phase's parity, its location marked
    (`{tlx.unchained_wait}`); triton's analysis lets expects pass each other
    (triton 3.7). `tlx-lower-thread-arrives` makes it the wait again.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TLXLowerThreadArrives : Pass<"tlx-lower-thread-arrives", "mlir::ModuleOp"> {
  let summary = "Every thread arrives where tlx-thread-arrives-as-expects marked";
  let description = [{
    Runs on the LLVM dialect right after `convert-triton-gpu-to-llvm`. Each
    `mbarrier.arrive.expect_tx` inline asm whose location carries the mark
    of `tlx-thread-arrives-as-expects` becomes
    `mbarrier.arrive.shared::cta.b64 _, [addr], N` run by every thread the
    arrive's own predicate lets through (not only the leader triton
    predicates it on), and the mark leaves the locations. An expect marked
    by `tlx-unchained-waits-as-expects` becomes triton's wait loop
    (`mbarrier.try_wait.parity`) of every thread, on the parity its
    predicate carries. A marked op this pass does not recognize is an error
    naming the triton lowering it found.
  }];
}

def TLXClusterProgramIds : Pass<"tlx-cluster-program-ids", "mlir::ModuleOp"> {
  let summary = "Program ids of CTA clusters whose CTAs are each a whole program";
  let description = [{
    Runs on TTGIR right after the TTIR->TTGIR conversion of a tlx kernel
    launched in clusters (`num_ctas` > 1). tlx_alias compiles such a kernel
    with one-CTA layouts (`ttg.num-ctas` = 1: each CTA holds its own tiles,
    TLX's Hopper clusters), so triton lowers `tt.get_program_id` to the CTA's
    id. Triton's launcher runs `num_ctas` CTAs per program along x, the
    cluster: this pass divides the x program id and program count by
    `cluster-size`, so that `tl.program_id(0)` is the cluster's, as in a
    triton kernel of `num_ctas` CTAs (`tlx.cluster_cta_rank()` tells the
    CTAs of a cluster apart).
  }];
  let options = [
    Option<"clusterSize", "cluster-size", "int", /*default=*/"1",
           "CTAs per cluster (triton's num_ctas)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TLXOpsAsMarks : Pass<"tlx-ops-as-marks", "mlir::ModuleOp"> {
  let summary = "Carry what triton's lowering cannot express into the LLVM dialect";
  let description = [{
    Runs on TTGIR right before `convert-triton-gpu-to-llvm`, which drops
    discardable attributes but keeps locations. The attributes put on
    triton's ops for what its lowering has no operand for move into one
    `FusedLoc` around the op's location (metadata: the attributes):
    `tlx.multicast_mask = M` on a `ttng.async_tma_copy_global_to_local`,
    `tlx.l2_eviction = E` (triton's EvictionPolicy) on it or on a TMA store
    or reduce,
    `tlx.remote_arrive = I` on a `ttng.arrive_barrier` and
    `tlx.remote_rank = I` on the `tt.elementwise_inline_asm` that yields the
    CTA rank that arrive goes to. `tlx-lower-marked-ops` reads them after
    the conversion.
  }];
}

def TLXLowerMarkedOps : Pass<"tlx-lower-marked-ops", "mlir::ModuleOp"> {
  let summary = "Multicast TMA loads, L2-hinted TMA copies, mbarrier arrives on another CTA";
  let description = [{
    Runs on the LLVM dialect after `convert-triton-gpu-to-llvm`,
    `tlx-lower-thread-arrives` and `tlx-sync-before-leader-arrive`. Triton
    lowers a one-CTA kernel's TMA load to `cp.async.bulk.tensor` into its
    own CTA with no cache hint and an arrive to
    `mbarrier.arrive.shared::cta`; where `tlx-ops-as-marks` marked them:
    * a TMA load with a multicast mask becomes `....multicast::cluster`
      with the mask: the tile lands at the same offset of each CTA in the
      mask, and each one's mbarrier at the barrier's offset gets the bytes;
    * a TMA copy (load, store, reduce) with an L2 eviction policy (first
      or last) takes `.L2::cache_hint` and a
      `createpolicy.fractional.L2::evict_*` policy covering the whole tile
      (triton 3.7 and 3.8 refuse the policy on TMA copies; one path for
      every version);
    * an arrive goes to the barrier at the same offset of the CTA whose
      rank the paired `tlx.remote_rank` asm yields
      (`mapa.shared::cluster`, then `mbarrier.arrive.shared::cluster`).
    A marked op whose lowering this pass does not recognize is an error
    naming what triton emitted; the marks leave the locations.
  }];
}

def TLXCheckHazards : Pass<"tlx-check-hazards", "mlir::ModuleOp"> {
  let summary = "Warn about races on shared local memory (reuse hazards)";
  let description = [{
    Runs on TTGIR after the storage-alias lowering, on the final offsets
    (for `@triton.jit` kernels, on make_ttgir's result). Each shared-memory
    access (`ttg.local_load/local_store`, `ttg.async_copy_global_to_local`,
    TMA loads and stores, `ttng.warp_group_dot` operands) is resolved
    through `ttg.memdesc_index/subslice/trans/reinterpret`, `tlx.local_alias`
    and warp-specialize captures to its `ttg.local_alloc` and a byte range;
    slot indices are evaluated concretely while loops are unrolled
    (counters with constant starts and steps; anything else is unknown and
    may overlap). Scalar kernel arguments take sample values (below), so
    ring counters derived from sizes (`tile * k_tiles % STAGES`) are
    concrete; program ids and loaded values stay unknown.

    Within one task, an asynchronous access (cp.async, a TMA load, async
    wgmma, a TMA store) is in flight until its completing wait
    (`ttg.async_wait` covering its commit group: all but the `num` most
    recent, `ttng.wait_barrier` on the barrier the copy signals,
    `ttng.warp_group_dot_wait` and `ttng.async_tma_store_wait` retiring all
    but their `pendings` most recent); a later access to overlapping bytes
    while it is in flight (one of the two writing) is a hazard. So is a TMA
    copy or wgmma operand (the async proxy) on bytes a `ttg.local_store`
    (the generic proxy) of the same task wrote with no
    `ttng.fence_async_shared` since, and a TMA store still in flight when
    its task ends. An initialized `ttg.local_alloc` (triton's own buffer: a
    tensor-descriptor store's staging copy) is a generic-proxy write;
    triton places these after TTGIR, ending each one's lifetime at its last
    use, so those of one task are taken to share bytes. In a kernel without
    `ttg.warp_specialize`, a TMA load is in flight until a wait on its
    barrier (no other task can take it over).

    The partitions of a `ttg.warp_specialize` are ordered phase by phase:
    their traces run against each other as the hardware would. An mbarrier
    completes a phase when its init count of arrivals (`ttng.arrive_barrier`,
    `ttng.barrier_expect`) is in and the bytes it expects have landed (the
    TMA loads that signal it); a `ttng.wait_barrier` waits for one phase,
    named from its parity operand (`(k / STAGES) & 1`, or its flip for the
    round before: the counter gives the round; otherwise the first phase of
    its parity from the last one the task knows complete, by its own waits
    or another task's it learned of), and then knows what that
    phase's arrivals knew and that its TMA loads completed. A named barrier
    (`bar.sync`/`bar.arrive` inline asm) completes a generation when its
    thread count has arrived. So a wait on slot s in round r orders round
    r's accesses, not round r + 1's. Every pair of access instances to
    overlapping bytes (one writing) in two partitions, or a TMA load its
    task hands to another one and a later access of its own, that neither
    completes before the other starts is a hazard. Where every task waits
    for a phase that the simulated rounds never complete (a missing arrive:
    a hang, or loops whose shapes differ between tasks), the wait is let
    through and what follows is not checked; `report-unchecked` says where
    and how much (a remark at that wait).
    Synchronous accesses within one task are left to triton's membar.

    Scalar kernel arguments take two sample values in two runs (829, and
    191 for loops too short to order one round by the next), loops with a
    known trip count run in full (up to 64 iterations), loops with an
    unknown one a bounded number of times (an unknown upper bound as that
    many steps from zero, so a consumer that peels its first round stays in
    step with its producer). Each finding is a warning at the later access
    naming both locations, the two buffers, the overlapping byte range of
    the allocation and what would order them, with a note at the other
    access.
  }];
  let options = [
    Option<"maxIterations", "max-iterations", "int", /*default=*/"0",
           "Iterations a loop of unknown trip count is unrolled (0: twice the largest buffer count plus 2, at least 12, rounded up to a whole number of every ring's phase cycles when that stays within 24); known trip counts run in full up to 64 or this">,
    Option<"reportUnchecked", "report-unchecked", "bool", /*default=*/"false",
           "Also remark, at the wait where the simulated tasks fall out of step, how many of that task's accesses after it are not checked">
  ];
}

def TLXPidAddressAnalysis : Pass<"tlx-pid-address-analysis", "mlir::ModuleOp"> {
  let summary = "Which bytes each program reads and writes, how coalesced, and cross-program writes";
  let description = [{
    A sparse forward dataflow analysis (MLIR's framework) over TTIR or TTGIR
    that tracks, for every integer and pointer value, its dependence on
    `tt.get_program_id` and on the element index:
    `value[i] = base + c + sum_a stride_a * pid_a + v + sum_d coef_d * i_d`
    (bytes for pointers; `base` a kernel argument, `v` a program-independent
    range such as an scf.for induction variable with constant bounds), through
    integer arithmetic, `tt.make_range`, `tt.splat`, `tt.broadcast`,
    `tt.expand_dims`, `tt.addptr` and `ttg.convert_layout`. Loaded values,
    integer kernel arguments and anything not derived exactly are unknown
    (known only by a power of two dividing them, from `tt.divisibility`),
    never guessed.

    Remarks (`remarks=true`), in the form of
    the design pid_address_analysis.md section 7: each
    program-dependent integer `PID_INFO(axis=0, stride=128, offset=[0,127],
    elem_range)`, each program-dependent pointer `ADDR_INFO(base=%arg0,
    axis=0, stride=512, offset=[0,508], coalesced=true)` (bytes), and each
    global load, store and atomic `PATTERN(PID_AFFINE | PID_INDEPENDENT |
    UNKNOWN, block_size=<elements>, stride=<bytes per program>,
    coalesced=<bool>)`; on TTGIR also the bytes a thread moves per access
    under the layout triton chose (`vector_bytes`), the most the contiguity,
    divisibility and mask allow (`best_vector_bytes`, triton's coalescing
    rules) and the reason when the access is uncoalesced or narrower than 16
    bytes. TMA copies are listed with their descriptor's box.

    A `tt.store` that two different programs provably may both execute on
    overlapping bytes (the same block in every program, or a per-program
    stride below the block) is a warning naming the two programs' byte
    ranges. `report=<file>` appends one JSON line per global access (what
    `tlx_alias.address_report` reads).
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"true",
           "Attach the PID_INFO / ADDR_INFO / PATTERN remarks">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Append one JSON line per global access to this file">
  ];
}

def TLXLower : Pass<"tlx-lower", "mlir::ModuleOp"> {
  let summary = "The whole TLX storage-alias lowering as one pass";
  let description = [{
    Runs `tlx-storage-alias-lowering`, `canonicalize` (folding the rewritten
    index arithmetic) and `tlx-rewrite-local-alias` on the module, so that a
    pipeline adds the whole lowering with one call. A module without tlx
    ops is left untouched.
  }];
  let options = [
    Option<"memoryMap", "memory-map", "std::string", /*default=*/"\"\"",
           "Append each spec's layout to this file (JSON lines)">,
    Option<"exactViews", "exact-views", "bool", /*default=*/"true",
           "Only views triton 3.8 accepts: each buffer at a multiple of its own "
           "size, each reinterpret of the whole allocation (off: packed views, "
           "which only triton 3.7 verifies)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

#endif // TLX_PASSES_TD
