#ifndef TLX_ALIAS_ANALYSIS_ADDRESSES_ADDRESSFACT_H
#define TLX_ALIAS_ANALYSIS_ADDRESSES_ADDRESSFACT_H

// The lattice of tlx-pid-address-analysis (docs/address_analysis.md): for an
// integer or pointer value (scalar or tensor), how it depends on the program
// id and on the element index,
//
//   value[i] = base + c + sum_a pid[a] * program_id(a) + v + sum_d coef[d] * i_d
//
// in integer units, or in bytes for pointers (base: a kernel argument). `v`
// is a program-independent term known only by its range [vlo, vhi] (scf.for
// induction variables); without `affine` the uniform part (everything but
// the coef terms) is some value the same for every element, known only by a
// power of two dividing it. Coefficients are exact or a divisor only
// (strides passed at run time). Nothing here is ever a guess: what is not
// derived exactly is marked unknown.

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <array>

namespace mlir::triton::tlx::addresses {

inline constexpr int64_t kMaxDivisor = int64_t(1) << 30;

/// The largest power of two dividing `value` (kMaxDivisor for 0).
int64_t powerOfTwoDivisor(int64_t value);
/// a * b for powers of two, saturating at kMaxDivisor.
int64_t multiplyDivisors(int64_t a, int64_t b);

/// The contribution of one dimension's index: exact (coef * i), or not
/// affine: runs of `contig` elements stepping by `step` (a remainder by a
/// run-time size: (start + i) % M), each run's start a multiple of
/// `divisor` (contig 1: every value is one).
struct Coef {
  bool known = true;
  int64_t value = 0;             // when known
  int64_t divisor = kMaxDivisor; // a power of two dividing it (run starts)
  int64_t step = 0;              // unknown: the step within runs
  int64_t contig = 1;            // unknown: the length of runs
  static Coef exact(int64_t value) { return {true, value, powerOfTwoDivisor(value), 0, 1}; }
  static Coef unknown(int64_t divisor) { return {false, 0, divisor, 0, 1}; }
  static Coef runs(int64_t divisor, int64_t step, int64_t contig) {
    return contig > 1 ? Coef{false, 0, divisor, step, contig} : unknown(divisor);
  }
  /// A power of two dividing every value, not only run starts.
  int64_t allValuesDivisor() const {
    return contig > 1 ? std::min(divisor, powerOfTwoDivisor(step)) : divisor;
  }
  bool isZero() const { return known && value == 0; }
  bool operator==(const Coef &other) const {
    return known == other.known && value == other.value && divisor == other.divisor &&
           step == other.step && contig == other.contig;
  }
};

struct AddressFact {
  bool initialized = false;
  Value base;              // pointers: the kernel argument the address starts from
  int64_t baseDivisor = 1; // pointers: the base's alignment (tt.divisibility)
  bool affine = true;      // the uniform part is c + pid terms + v, exactly
  bool mayVary = false;    // may differ between two programs
  std::array<int64_t, 3> pid = {0, 0, 0};
  int64_t c = 0, vlo = 0, vhi = 0;
  int64_t uniformDivisor = kMaxDivisor; // a power of two dividing the uniform part
  bool elemKnown = true;                 // the coefficients below are valid
  SmallVector<int64_t> shape;
  SmallVector<Coef> coef;

  static AddressFact constant(ArrayRef<int64_t> shape, int64_t value);
  /// The same (unknown) value for every element.
  static AddressFact uniform(ArrayRef<int64_t> shape, bool mayVary, int64_t divisor);
  /// Nothing known.
  static AddressFact unknown(ArrayRef<int64_t> shape);

  bool hasPid() const { return pid[0] || pid[1] || pid[2]; }
  bool isUniformAcrossElements() const;
  bool isConstant() const;
  bool allCoefsExact() const;
  /// The range of c + v + coef terms (the offset within a program).
  std::optional<std::pair<int64_t, int64_t>> offsetRange() const;
  /// For pointers: the pattern is known exactly (PID_AFFINE or PID_INDEPENDENT).
  bool isExact() const { return affine && elemKnown && allCoefsExact(); }

  bool operator==(const AddressFact &other) const;
  static AddressFact join(const AddressFact &lhs, const AddressFact &rhs);
  void print(raw_ostream &os) const;
};

// Transfer functions (AddressFact.cpp). Results carry `shape`.
AddressFact add(const AddressFact &a, const AddressFact &b, ArrayRef<int64_t> shape);
AddressFact negate(const AddressFact &a);
AddressFact scale(const AddressFact &a, int64_t k);
AddressFact multiply(const AddressFact &a, const AddressFact &b, ArrayRef<int64_t> shape);
AddressFact reshapeTo(const AddressFact &a, ArrayRef<int64_t> shape); // splat/broadcast
AddressFact expandDims(const AddressFact &a, int axis, ArrayRef<int64_t> shape);
/// a % m for m the same in every element (arith.remsi/remui).
AddressFact remainder(const AddressFact &a, const AddressFact &m, ArrayRef<int64_t> shape);

} // namespace mlir::triton::tlx::addresses

#endif // TLX_ALIAS_ANALYSIS_ADDRESSES_ADDRESSFACT_H
