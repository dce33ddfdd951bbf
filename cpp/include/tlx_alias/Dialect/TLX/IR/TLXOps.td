#ifndef TLX_OPS_TD
#define TLX_OPS_TD

include "tlx_alias/Dialect/TLX/IR/TLXDialect.td"
include "tlx_alias/Dialect/TLX/IR/TLXEnums.td"
include "tlx_alias/Dialect/TLX/IR/TLXTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TLX_StorageAliasSpecOp : TLX_Op<"storage_alias_spec",
    [MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "Define a storage alias specification";
  let description = [{
    Names one region of local memory that `tlx.storage_alias_local_alloc`
    ops may share. It allocates nothing itself: `tlx-storage-alias-lowering`
    sizes the region (the largest user, or the tree given by
    `tlx.set_buffer_overlap`), checks an explicit `size` against it, and
    materializes one allocation.

    The op is not `Pure` (unlike the design's sketch): two specs with equal
    attributes are still two regions, and CSE must not merge them.

    ```mlir
    %alias = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %alias_sized = tlx.storage_alias_spec storage = tmem, size = 16384 : !tlx.storage_alias_spec<tmem, 16384>
    ```
  }];
  let arguments = (ins
    TLX_StorageKindAttr:$storage,
    OptionalAttr<I64Attr>:$buffer_size_bytes
  );
  let results = (outs TLX_StorageAliasSpecType:$result);
  let assemblyFormat = [{
    `storage` `=` $storage (`,` `size` `=` $buffer_size_bytes^)?
    attr-dict `:` qualified(type($result))
  }];
  let builders = [
    OpBuilder<(ins "StorageKind":$storage), [{
      build($_builder, $_state,
            StorageAliasSpecType::get($_builder.getContext(), storage, std::nullopt),
            storage, /*buffer_size_bytes=*/nullptr);
    }]>,
    OpBuilder<(ins "StorageKind":$storage, "int64_t":$bufferSizeBytes), [{
      build($_builder, $_state,
            StorageAliasSpecType::get($_builder.getContext(), storage, bufferSizeBytes),
            storage, $_builder.getI64IntegerAttr(bufferSizeBytes));
    }]>
  ];
  let hasVerifier = 1;
}

def TLX_StorageAliasLocalAllocOp : TLX_Op<"storage_alias_local_alloc",
    [MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "Allocate local memory inside a storage alias spec";
  let description = [{
    A multi-buffered allocation (`[num, ...]`) placed inside the region of
    `%spec`. Its memory space must match the spec's storage (`smem` ↔
    `#ttg.shared_memory`, `tmem` ↔ `#ttng.tensor_memory`) and it must be
    mutable. Lowering replaces it with a `tlx.local_alias` of the region.

    Not `Pure`: two allocations of the same type in one spec are different
    buffers, and CSE must not merge them.

    ```mlir
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins TLX_StorageAliasSpecType:$storage_alias_spec);
  let results = (outs TLX_MemDesc:$result);
  let assemblyFormat = [{
    $storage_alias_spec attr-dict `:` qualified(type($storage_alias_spec)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TLX_LocalAliasOp : TLX_Op<"local_alias", [Pure]> {
  let summary = "View one local-memory allocation with another type";
  let description = [{
    A view of `%src` at offset 0 with another shape, element type or layout
    (the legacy `reuse=buffered_tensor`, and what lowering makes of each
    `tlx.storage_alias_local_alloc`). Both sides are memory descriptors in
    the same memory space. `tlx-rewrite-local-alias` turns every view into a
    `ttg.memdesc_reinterpret` of one large enough base allocation.

    ```mlir
    %b = tlx.local_alias %a : !ttg.memdesc<32768xi8, #shared, #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #shared1, #smem, mutable>
    ```
  }];
  let arguments = (ins TLX_MemDesc:$src);
  let results = (outs TLX_MemDesc:$result);
  let assemblyFormat = [{
    $src attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TLX_ReuseGroupOp : TLX_Op<"reuse_group", [Pure]> {
  let summary = "Group allocations into a node of a buffer overlap tree";
  let description = [{
    Elements are allocations (`!ttg.memdesc`) or nested groups. `shared`
    elements overlap at each buffer index; `distinct` elements do not. The
    spec is not an operand: `tlx.set_buffer_overlap` ties a tree to a spec.

    `group_size = k` (default 1) subtiles: k consecutive buffers of each
    element form one buffer index of the parent (buffers ki .. ki + k - 1 sit
    side by side in the parent's buffer i), so the group needs k times the
    space of its elements per parent index.

    Verified: at least one element; `group_size` is positive; a nested
    group's kind differs from its parent's unless it subtiles (`group_size`
    > 1); all leaves have the same storage kind (their buffer counts may
    differ); the result type's kind is `group_kind`.

    ```mlir
    %g = tlx.reuse_group(%a, %b) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
    %s = tlx.reuse_group(%p) group_kind = shared group_size = 2 : (!ttg.memdesc<4x64x32xbf16, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
    ```
  }];
  let arguments = (ins
    Variadic<TLX_ReuseGroupElement>:$elements,
    TLX_ReuseGroupKindAttr:$group_kind,
    OptionalAttr<I64Attr>:$group_size
  );
  let results = (outs TLX_ReuseGroupType:$result);
  let assemblyFormat = [{
    `(` $elements `)` `group_kind` `=` $group_kind (`group_size` `=` $group_size^)? attr-dict `:`
    `(` qualified(type($elements)) `)` `->` qualified(type($result))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$elements, "ReuseGroupKind":$kind), [{
      build($_builder, $_state, ReuseGroupType::get($_builder.getContext(), kind),
            elements, kind, ::mlir::IntegerAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// `group_size`, 1 when absent.
    int64_t getGroupSizeOrOne() {
      return static_cast<int64_t>(getGroupSize().value_or(1));
    }
    /// Appends the allocations at the leaves of this tree, in order.
    void collectLeaves(::llvm::SmallVectorImpl<::mlir::Value> &leaves);
  }];
  let hasVerifier = 1;
}

def TLX_SetBufferOverlapOp : TLX_Op<"set_buffer_overlap"> {
  let summary = "Attach a buffer overlap tree to a storage alias spec";
  let description = [{
    Says how the allocations of `%spec` are laid out: by the reuse group
    tree `%overlap_def`. Every leaf must be a `tlx.storage_alias_local_alloc`
    of this same spec, of the spec's storage kind, and appear once. A spec
    takes at most one overlap definition (checked by the lowering, which
    erases this op).

    ```mlir
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    ```
  }];
  let arguments = (ins
    TLX_StorageAliasSpecType:$storage_alias_spec,
    TLX_ReuseGroupType:$overlap_def
  );
  let assemblyFormat = [{
    `(` $storage_alias_spec `,` $overlap_def `)` attr-dict
    `:` `(` qualified(type($storage_alias_spec)) `,` qualified(type($overlap_def)) `)` `->` `(` `)`
  }];
  let hasVerifier = 1;
}

def TLX_LocalLoadOp : TLX_Op<"local_load", [MemoryEffects<[MemRead<DefaultResource>]>]> {
  let summary = "Load one buffer into a tensor (TTIR; layout chosen later)";
  let description = [{
    What `tlx.local_load(view)` emits in a `@triton.jit` kernel, where
    tensors have no layout yet. Right after Triton's TTIR->TTGIR conversion,
    `tlx-convert-local-memory` turns it into a `ttg.local_load` producing the
    layout its converted users ask for.

    ```mlir
    %t = tlx.local_load %buf : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins TLX_MemDesc:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{ $src attr-dict `:` type($src) `->` type($result) }];
  let hasVerifier = 1;
}

def TLX_LocalStoreOp : TLX_Op<"local_store", [MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Store a tensor into one buffer (TTIR; layout chosen later)";
  let description = [{
    What `tlx.local_store(view, value)` emits in a `@triton.jit` kernel.
    `tlx-convert-local-memory` turns it into a `ttg.local_store` of the
    value's converted (encoded) form.

    ```mlir
    tlx.local_store %t, %buf : tensor<64x64xf32> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value, TLX_MemDesc:$dst);
  let assemblyFormat = [{ $value `,` $dst attr-dict `:` type($value) `->` type($dst) }];
  let hasVerifier = 1;
}

def TLX_AsyncLoadOp : TLX_Op<"async_load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Copy a tile from global memory into one buffer, asynchronously (TTIR)";
  let description = [{
    What `tlx.async_load(pointers, buffer, mask, other)` emits in a
    `@triton.jit` kernel, before tensors have layouts. After the TTIR->TTGIR
    conversion `tlx-convert-local-memory` turns it into
    `ttg.async_copy_global_to_local` (cp.async) of the encoded operands.
    Completion is awaited with `ttg.async_commit_group`/`ttg.async_wait`.

    ```mlir
    %t = tlx.async_load %ptrs, %buf : tensor<64x64x!tt.ptr<f16>> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$src, TLX_MemDesc:$dst,
                       Optional<AnyRankedTensor>:$mask, Optional<AnyRankedTensor>:$other);
  let results = (outs AnyType:$token);
  let assemblyFormat = [{
    $src `,` $dst (`mask` $mask^ `:` type($mask))? (`other` $other^ `:` type($other))?
    attr-dict `:` type($src) `->` type($dst) `,` type($token)
  }];
  let hasVerifier = 1;
}

include "tlx_alias/Dialect/TLX/IR/TLXAsyncCopyOps.td"
include "tlx_alias/Dialect/TLX/IR/TLXMMAOps.td"
include "tlx_alias/Dialect/TLX/IR/TLXTMAOps.td"

#endif // TLX_OPS_TD
