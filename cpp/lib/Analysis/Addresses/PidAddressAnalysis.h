#ifndef TLX_ALIAS_ANALYSIS_ADDRESSES_PIDADDRESSANALYSIS_H
#define TLX_ALIAS_ANALYSIS_ADDRESSES_PIDADDRESSANALYSIS_H

// tlx-pid-address-analysis, in three parts: the dataflow analysis that
// derives an AddressFact per value (PidAddressAnalysis.cpp), the coalescing
// rules applied to the facts of each global access (Coalescing.cpp) and the
// cross-program write check (AddressRaces.cpp); the pass
// (PidAddressAnalysisPass.cpp) reports them.

#include "AddressFact.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::triton::tlx::addresses {

/// The facts of every value of a module: a forward fixpoint over its
/// functions in program order, loops (scf.for) iterated until their carried
/// values stop changing, branches (scf.if) joined, the partitions of a
/// warp_specialize given their captures' facts. The lattice (AddressFact:
/// join, ==) is the one MLIR's sparse dataflow framework takes; the
/// framework itself is not used: its RegionSuccessor and
/// visitNonControlFlowArgumentsImpl differ between the MLIR 22.1.8 headers
/// and every supported libtriton (the layout gate rejects them).
class AddressFacts {
public:
  explicit AddressFacts(ModuleOp module);
  /// The fact of `value`; unknown when it has none.
  AddressFact get(Value value) const;

private:
  void visitBlock(Block &block);
  void visitOp(Operation *op);
  void visitFor(Operation *op);
  void visitIf(Operation *op);
  void visitOtherRegions(Operation *op);
  bool set(Value value, const AddressFact &fact); // joins; true when it changed
  llvm::DenseMap<Value, AddressFact> facts;
};

/// Shape of a tensor type ({} for scalars).
SmallVector<int64_t> shapeOf(Type type);

/// How a pointer access is coalesced and vectorized (coalescing_reference).
struct Coalescing {
  bool coalesced = true;
  int contiguousDim = -1;
  int64_t vectorBytes = -1; // per thread as compiled; -1 without a blocked layout
  int64_t bestVectorBytes = 0;
  std::string reason;
};

/// Elements along `dim` over which `mask` stays constant (a divisor of the
/// runs triton can vectorize through); kMaxDivisor without a mask.
int64_t maskRun(const AddressFacts &facts, Value mask, int dim, int depth = 0);

/// The coalescing of an access through pointers of fact `ptr` (bytes),
/// `elementBytes` each, of type `type` (its layout, on TTGIR), run by
/// `threads` threads (0: unknown).
Coalescing analyzeCoalescing(const AddressFacts &facts, const AddressFact &ptr,
                             int64_t elementBytes, Type type, Value mask,
                             int64_t threads);

/// The message of a cross-program write race of `store` (a tt.store), when
/// two program ids provably may write overlapping bytes; "" otherwise.
std::string findCrossProgramRace(const AddressFacts &facts, Operation *store,
                                 const AddressFact &ptr, int64_t elementBytes,
                                 Value mask);

/// The name of a pointer's base: the kernel argument's name (its location),
/// else %argN.
std::string baseName(Value base, bool preferSourceName);

} // namespace mlir::triton::tlx::addresses

#endif // TLX_ALIAS_ANALYSIS_ADDRESSES_PIDADDRESSANALYSIS_H
