#ifndef TLX_TMA_OPS_TD
#define TLX_TMA_OPS_TD

// Tensor Memory Accelerator copies through tensor descriptors.
//
// Triton's ttng TMA ops require the descriptor's block layout to equal the
// buffer's; in TTIR descriptors have no layout yet, so these ops stand in
// until `tlx-convert-tma` gives the descriptor the buffer's layout.

def TLX_AsyncDescriptorLoadOp : TLX_Op<"async_descriptor_load",
    [MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Copy a tile from global memory into one buffer with TMA (TTIR)";
  let description = [{
    What `tlx.async_descriptor_load(desc, buf, offsets, barrier, pred)`
    emits. The copy signals `barrier` (an mbarrier expecting its bytes) when
    it lands. Becomes `ttng.async_tma_copy_global_to_local`. A non-zero
    `multicast_mask` (bit r: the CTA of rank r in the cluster) multicasts it:
    the tile lands at the buffer's offset in each of those CTAs, each one's
    barrier at its offset gets the bytes (`tlx-lower-marked-ops`). `evict`
    (triton's EvictionPolicy: 1 normal, 2 first, 3 last) is the copy's L2
    eviction priority, which `tlx-lower-marked-ops` writes into the PTX
    (triton's TMA lowering takes none); `cache` must stay 1 (none): TMA
    copies take no cache modifier.

    ```mlir
    tlx.async_descriptor_load %desc[%x, %y] %buf, %bar, %pred : !tt.tensordesc<tensor<128x64xf16>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<128x64xf16, #nvmma, #smem, mutable>
    ```
  }];
  let arguments = (ins
    AnyType:$desc,
    Variadic<I32>:$coord,
    TLX_MemDesc:$result,
    TLX_MemDesc:$barrier,
    I1:$pred,
    DefaultValuedAttr<I32Attr, "1">:$cache,
    DefaultValuedAttr<I32Attr, "1">:$evict,
    DefaultValuedAttr<I32Attr, "0">:$multicast_mask
  );
  let assemblyFormat = [{
    $desc `[` $coord `]` $result `,` $barrier `,` $pred attr-dict `:`
    type($desc) `,` type($barrier) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TLX_AsyncDescriptorStoreOp : TLX_Op<"async_descriptor_store",
    [MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Copy one buffer to global memory with TMA (TTIR)";
  let description = [{
    What `tlx.async_descriptor_store(desc, buf, offsets, store_reduce=...)`
    emits. Completion is awaited with `ttng.async_tma_store_wait`. Becomes
    `ttng.async_tma_copy_local_to_global`, or, with `reduce_kind` (triton's
    DescriptorReduceKind value, which the frontend reads from triton),
    `ttng.async_tma_reduce` of that kind: the tile is added (min, max, ...)
    into global memory instead of overwriting it. `evict` (as the load's)
    is the copy's L2 eviction priority (`tlx-lower-marked-ops`).

    ```mlir
    tlx.async_descriptor_store %desc[%x, %y] %buf : !tt.tensordesc<tensor<128x64xf16>>, !ttg.memdesc<128x64xf16, #nvmma, #smem, mutable>
    tlx.async_descriptor_store %desc[%x, %y] %buf {reduce_kind = 1 : i32} : !tt.tensordesc<tensor<128x64xf32>>, !ttg.memdesc<128x64xf32, #nvmma, #smem, mutable>
    ```
  }];
  let arguments = (ins AnyType:$desc, Variadic<I32>:$coord, TLX_MemDesc:$src,
                   OptionalAttr<I32Attr>:$reduce_kind,
                   DefaultValuedAttr<I32Attr, "1">:$evict);
  let assemblyFormat = [{
    $desc `[` $coord `]` $src attr-dict `:` type($desc) `,` type($src)
  }];
  let hasVerifier = 1;
}

#endif // TLX_TMA_OPS_TD
