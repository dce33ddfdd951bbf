#ifndef TLX_ENUMS_TD
#define TLX_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def TLX_StorageKind_Smem : I32EnumAttrCase<"smem", 0, "smem">;
def TLX_StorageKind_Tmem : I32EnumAttrCase<"tmem", 1, "tmem">;
def TLX_StorageKind_SmemCluster : I32EnumAttrCase<"smemCluster", 2, "smemCluster">;

def TLX_StorageKindAttr : I32EnumAttr<
    "StorageKind", "TLX local memory kind",
    [TLX_StorageKind_Smem, TLX_StorageKind_Tmem, TLX_StorageKind_SmemCluster]> {
  let cppNamespace = "::mlir::triton::tlx";
  let description = [{
    Where a buffer lives: `smem` (`#ttg.shared_memory`), `tmem`
    (`#ttng.tensor_memory`), or `smemCluster` (distributed shared memory,
    which storage alias specs do not support).
  }];
}

def TLX_ReuseGroupKind_Shared : I32EnumAttrCase<"shared", 0, "shared">;
def TLX_ReuseGroupKind_Distinct : I32EnumAttrCase<"distinct", 1, "distinct">;

def TLX_ReuseGroupKindAttr : I32EnumAttr<
    "ReuseGroupKind", "TLX reuse group kind for buffer overlap definitions",
    [TLX_ReuseGroupKind_Shared, TLX_ReuseGroupKind_Distinct]> {
  let cppNamespace = "::mlir::triton::tlx";
  let description = [{
    How the elements of a reuse group relate at each buffer index:

    - `shared`: elements start at the same offset and overlap; they must be
      used at different times. The group needs the largest element's bytes.
    - `distinct`: elements are laid out one after another and never overlap;
      they may be used at the same time. The group needs the sum of its
      (aligned) elements' bytes.
  }];
}

// Values as triton's own `tt` InputPrecision (the `inputPrecision` of
// ttng.warp_group_dot, which tlx-convert-mma passes them to).
def TLX_InputPrecision_TF32 : I32EnumAttrCase<"tf32", 0, "tf32">;
def TLX_InputPrecision_TF32x3 : I32EnumAttrCase<"tf32x3", 1, "tf32x3">;
def TLX_InputPrecision_IEEE : I32EnumAttrCase<"ieee", 2, "ieee">;

def TLX_InputPrecisionAttr : I32EnumAttr<
    "InputPrecision", "how async_dot multiplies fp32 inputs",
    [TLX_InputPrecision_TF32, TLX_InputPrecision_TF32x3, TLX_InputPrecision_IEEE]> {
  let cppNamespace = "::mlir::triton::tlx";
  let description = [{
    `tf32`: fp32 operands rounded to tf32 (the tensor cores' fp32 input);
    `tf32x3`: three tf32 products that recover fp32 accuracy; `ieee`: full
    fp32 (the default; fp16/bf16/fp8/int8 operands ignore it).
  }];
}

#endif // TLX_ENUMS_TD
