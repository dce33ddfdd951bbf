#ifndef TLX_ALIAS_ANALYSIS_ADDRESSES_PIDADDRESSANALYSIS_H
#define TLX_ALIAS_ANALYSIS_ADDRESSES_PIDADDRESSANALYSIS_H

// tlx-pid-address-analysis, in three parts: the dataflow analysis that
// derives an AddressFact per value (PidAddressAnalysis.cpp), the coalescing
// rules applied to the facts of each global access (Coalescing.cpp) and the
// cross-program write check (AddressRaces.cpp); the pass
// (PidAddressAnalysisPass.cpp) reports them.

#include "AddressFact.h"

#include "mlir/Analysis/DataFlowFramework.h"

#include <string>

namespace mlir::triton::tlx::addresses {

class PidAddressAnalysis
    : public dataflow::SparseForwardDataFlowAnalysis<AddressLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  LogicalResult visitOperation(Operation *op, ArrayRef<const AddressLattice *> operands,
                               ArrayRef<AddressLattice *> results) override;
  void setToEntryState(AddressLattice *lattice) override;
  // The arguments of a region that no control flow forwards (an scf.for's
  // induction variable) take their entry state. Every supported libtriton
  // (3.7.0 to 3.9.0) calls this with the non-forwarded values and their
  // lattices, (op, successor, ValueRange, ArrayRef<lattice>); the MLIR 22.1.8
  // headers declare (op, successor, ArrayRef<lattice>, unsigned firstIndex).
  // Both forms are defined: the one the headers declare overrides, and under
  // the 22.1.8 form the registers hold libtriton's ValueRange where the
  // headers put the ArrayRef (decoded there; the successor is never read,
  // its layout differs: the layout gate lists it).
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winconsistent-missing-override"
  void visitNonControlFlowArgumentsImpl(Operation *op, const RegionSuccessor &successor,
                                        ArrayRef<dataflow::AbstractSparseLattice *> argLattices,
                                        unsigned firstIndex);
  void visitNonControlFlowArgumentsImpl(Operation *op, const RegionSuccessor &successor,
                                        ValueRange nonSuccessorInputs,
                                        ArrayRef<dataflow::AbstractSparseLattice *> lattices);
#pragma clang diagnostic pop
};

/// The fact the solver holds for `value`; unknown when it has none.
AddressFact factOf(DataFlowSolver &solver, Value value);

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
int64_t maskRun(DataFlowSolver &solver, Value mask, int dim, int depth = 0);

/// The coalescing of an access through pointers of fact `ptr` (bytes),
/// `elementBytes` each, of type `type` (its layout, on TTGIR), run by
/// `threads` threads (0: unknown).
Coalescing analyzeCoalescing(DataFlowSolver &solver, const AddressFact &ptr,
                             int64_t elementBytes, Type type, Value mask,
                             int64_t threads);

/// The message of a cross-program write race of `store` (a tt.store), when
/// two program ids provably may write overlapping bytes; "" otherwise.
std::string findCrossProgramRace(DataFlowSolver &solver, Operation *store,
                                 const AddressFact &ptr, int64_t elementBytes,
                                 Value mask);

/// The name of a pointer's base: the kernel argument's name (its location),
/// else %argN.
std::string baseName(Value base, bool preferSourceName);

} // namespace mlir::triton::tlx::addresses

#endif // TLX_ALIAS_ANALYSIS_ADDRESSES_PIDADDRESSANALYSIS_H
