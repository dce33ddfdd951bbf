#ifndef TLX_TYPES_TD
#define TLX_TYPES_TD

include "tlx_alias/Dialect/TLX/IR/TLXDialect.td"
include "tlx_alias/Dialect/TLX/IR/TLXEnums.td"
include "mlir/IR/AttrTypeBase.td"

def TLX_StorageAliasSpecType : TLX_Type<"StorageAliasSpec", "storage_alias_spec"> {
  let summary = "A storage alias specification";
  let description = [{
    One region of local memory that several allocations may alias. Carries
    the storage kind (`smem` or `tmem`; `smemCluster` is rejected) and, when
    the user fixed it, the size in bytes.

    ```mlir
    !tlx.storage_alias_spec<smem>
    !tlx.storage_alias_spec<tmem, 16384>
    ```
  }];
  let parameters = (ins
    EnumParameter<TLX_StorageKindAttr>:$storage,
    OptionalParameter<"std::optional<int64_t>">:$bufferSizeBytes
  );
  let assemblyFormat = "`<` $storage (`,` $bufferSizeBytes^)? `>`";
  let genVerifyDecl = 1;
}

def TLX_ReuseGroupType : TLX_Type<"ReuseGroup", "reuse_group"> {
  let summary = "A reuse group: a node of a buffer overlap tree";
  let description = [{
    A `shared` or `distinct` group of allocations and nested groups. The
    storage kind is inferred from the leaves and not stored in the type.

    ```mlir
    !tlx.reuse_group<shared>
    !tlx.reuse_group<distinct>
    ```
  }];
  let parameters = (ins EnumParameter<TLX_ReuseGroupKindAttr>:$groupKind);
  let assemblyFormat = "`<` $groupKind `>`";
}

// Triton's memory descriptor, checked by name (no Triton headers here).
def TLX_MemDesc : Type<CPred<"::mlir::triton::tlx::isMemDesc($_self)">,
                       "memory descriptor (!ttg.memdesc)",
                       "::mlir::ShapedType">;

def TLX_ReuseGroupElement : AnyTypeOf<[TLX_MemDesc, TLX_ReuseGroupType],
    "memory descriptor or reuse group">;

#endif // TLX_TYPES_TD
