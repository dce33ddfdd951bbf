// The lattice of tlx-pid-address-analysis and its arithmetic (AddressFact.h).
// Every operation either derives its result exactly or gives up on the part
// it cannot derive (an overflow, a product of two varying values): a fact is
// never a guess.

#include "AddressFact.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::triton::tlx::addresses {

int64_t powerOfTwoDivisor(int64_t value) {
  if (value == 0)
    return kMaxDivisor;
  uint64_t magnitude = value < 0 ? uint64_t(0) - uint64_t(value) : uint64_t(value);
  return std::min<int64_t>(kMaxDivisor, int64_t(magnitude & (~magnitude + 1)));
}

int64_t multiplyDivisors(int64_t a, int64_t b) {
  if (a >= kMaxDivisor / b)
    return kMaxDivisor;
  return a * b;
}

static SmallVector<Coef> zeros(ArrayRef<int64_t> shape) {
  return SmallVector<Coef>(shape.size(), Coef::exact(0));
}

AddressFact AddressFact::constant(ArrayRef<int64_t> shape, int64_t value) {
  AddressFact fact;
  fact.initialized = true;
  fact.c = value;
  fact.uniformDivisor = powerOfTwoDivisor(value);
  fact.shape.assign(shape.begin(), shape.end());
  fact.coef = zeros(shape);
  return fact;
}

AddressFact AddressFact::uniform(ArrayRef<int64_t> shape, bool mayVary, int64_t divisor) {
  AddressFact fact = constant(shape, 0);
  fact.affine = false;
  fact.mayVary = mayVary;
  fact.uniformDivisor = divisor;
  return fact;
}

AddressFact AddressFact::unknown(ArrayRef<int64_t> shape) {
  AddressFact fact = uniform(shape, /*mayVary=*/true, 1);
  if (shape.empty())
    return fact; // a scalar is the same for its one element
  fact.elemKnown = false;
  fact.coef.clear();
  return fact;
}

bool AddressFact::isUniformAcrossElements() const {
  if (!elemKnown)
    return false;
  for (auto [size, k] : llvm::zip(shape, coef))
    if (size > 1 && !k.isZero())
      return false;
  return true;
}

bool AddressFact::isConstant() const {
  return initialized && affine && !hasPid() && vlo == vhi && vlo == 0 &&
         isUniformAcrossElements();
}

bool AddressFact::allCoefsExact() const {
  if (!elemKnown)
    return false;
  for (auto [size, k] : llvm::zip(shape, coef))
    if (size > 1 && !k.known)
      return false;
  return true;
}

std::optional<std::pair<int64_t, int64_t>> AddressFact::offsetRange() const {
  if (!affine || !allCoefsExact())
    return std::nullopt;
  int64_t lo = c + vlo, hi = c + vhi;
  for (auto [size, k] : llvm::zip(shape, coef)) {
    if (size <= 1)
      continue;
    int64_t span;
    if (llvm::MulOverflow(k.value, size - 1, span))
      return std::nullopt;
    (span < 0 ? lo : hi) += span;
  }
  return std::make_pair(lo, hi);
}

bool AddressFact::operator==(const AddressFact &other) const {
  return initialized == other.initialized && base == other.base &&
         baseDivisor == other.baseDivisor && affine == other.affine &&
         mayVary == other.mayVary && pid == other.pid && c == other.c &&
         vlo == other.vlo && vhi == other.vhi &&
         uniformDivisor == other.uniformDivisor && elemKnown == other.elemKnown &&
         shape == other.shape && coef == other.coef;
}

// Keeps a fact canonical: what is unknown carries no stale numbers, so
// that equal knowledge compares equal.
static AddressFact canonical(AddressFact fact) {
  if (!fact.affine) {
    fact.pid = {0, 0, 0};
    fact.c = fact.vlo = fact.vhi = 0;
  }
  if (!fact.elemKnown)
    fact.coef.clear();
  return fact;
}

AddressFact AddressFact::join(const AddressFact &lhs, const AddressFact &rhs) {
  if (!lhs.initialized)
    return rhs;
  if (!rhs.initialized)
    return lhs;
  AddressFact r = lhs;
  if (lhs.base != rhs.base) {
    r.base = Value();
    r.affine = false;
  }
  r.baseDivisor = std::min(lhs.baseDivisor, rhs.baseDivisor);
  bool sameUniform = lhs.affine == rhs.affine && lhs.pid == rhs.pid && lhs.c == rhs.c &&
                     lhs.vlo == rhs.vlo && lhs.vhi == rhs.vhi;
  if (!sameUniform) {
    // Two values reaching one point: which one may depend on the program.
    r.affine = false;
    r.mayVary = true;
  }
  r.mayVary = r.mayVary || rhs.mayVary;
  r.uniformDivisor = std::min(lhs.uniformDivisor, rhs.uniformDivisor);
  if (!lhs.elemKnown || !rhs.elemKnown || lhs.shape != rhs.shape) {
    r.elemKnown = false;
  } else {
    for (auto [mine, theirs] : llvm::zip(r.coef, rhs.coef))
      if (!(mine == theirs))
        mine = Coef::unknown(std::min(mine.allValuesDivisor(), theirs.allValuesDivisor()));
  }
  return canonical(r);
}

void AddressFact::print(raw_ostream &os) const {
  if (!initialized) {
    os << "<uninitialized>";
    return;
  }
  os << (affine ? "affine" : "uniform?") << " pid=[" << pid[0] << "," << pid[1] << ","
     << pid[2] << "] c=" << c << " v=[" << vlo << "," << vhi << "]";
}

static bool checkedAdd(int64_t a, int64_t b, int64_t &out) {
  return !llvm::AddOverflow(a, b, out);
}

AddressFact add(const AddressFact &a, const AddressFact &b, ArrayRef<int64_t> shape) {
  AddressFact r = AddressFact::constant(shape, 0);
  r.base = a.base ? a.base : b.base;
  r.baseDivisor = a.base ? a.baseDivisor : b.baseDivisor;
  r.mayVary = a.mayVary || b.mayVary;
  r.uniformDivisor = std::min(a.uniformDivisor, b.uniformDivisor);
  r.affine = a.affine && b.affine;
  for (int i = 0; i < 3 && r.affine; ++i)
    r.affine = checkedAdd(a.pid[i], b.pid[i], r.pid[i]);
  r.affine = r.affine && checkedAdd(a.c, b.c, r.c) && checkedAdd(a.vlo, b.vlo, r.vlo) &&
             checkedAdd(a.vhi, b.vhi, r.vhi);
  r.elemKnown = a.elemKnown && b.elemKnown && a.coef.size() == shape.size() &&
                b.coef.size() == shape.size();
  for (size_t d = 0; r.elemKnown && d < shape.size(); ++d) {
    const Coef &x = a.coef[d], &y = b.coef[d];
    int64_t sum;
    if (x.known && y.known && checkedAdd(x.value, y.value, sum))
      r.coef[d] = Coef::exact(sum);
    else if (y.isZero())
      r.coef[d] = x;
    else if (x.isZero())
      r.coef[d] = y;
    else
      r.coef[d] = Coef::unknown(std::min(x.allValuesDivisor(), y.allValuesDivisor()));
  }
  return canonical(r);
}

AddressFact negate(const AddressFact &a) { return scale(a, -1); }

AddressFact scale(const AddressFact &a, int64_t k) {
  if (k == 0)
    return AddressFact::constant(a.shape, 0);
  AddressFact r = a;
  int64_t kDivisor = powerOfTwoDivisor(k);
  r.uniformDivisor = multiplyDivisors(a.uniformDivisor, kDivisor);
  for (int i = 0; i < 3 && r.affine; ++i)
    r.affine = !llvm::MulOverflow(a.pid[i], k, r.pid[i]);
  r.affine = r.affine && !llvm::MulOverflow(a.c, k, r.c) &&
             !llvm::MulOverflow(a.vlo, k, r.vlo) && !llvm::MulOverflow(a.vhi, k, r.vhi);
  if (k < 0)
    std::swap(r.vlo, r.vhi);
  for (Coef &coef : r.coef) {
    int64_t product;
    if (coef.known && !llvm::MulOverflow(coef.value, k, product))
      coef = Coef::exact(product);
    else if (!coef.known && coef.contig > 1 && !llvm::MulOverflow(coef.step, k, product))
      coef = Coef::runs(multiplyDivisors(coef.divisor, kDivisor), product, coef.contig);
    else
      coef = Coef::unknown(multiplyDivisors(coef.allValuesDivisor(), kDivisor));
  }
  return canonical(r);
}

AddressFact multiply(const AddressFact &a, const AddressFact &b, ArrayRef<int64_t> shape) {
  if (b.isConstant())
    return reshapeTo(scale(a, b.c), shape);
  if (a.isConstant())
    return reshapeTo(scale(b, a.c), shape);
  bool aUniform = a.isUniformAcrossElements(), bUniform = b.isUniformAcrossElements();
  int64_t divisor = multiplyDivisors(a.uniformDivisor, b.uniformDivisor);
  if (!aUniform && !bUniform) {
    AddressFact r = AddressFact::unknown(shape);
    r.mayVary = a.mayVary || b.mayVary;
    return r;
  }
  const AddressFact &varying = aUniform ? b : a, &factor = aUniform ? a : b;
  AddressFact r = AddressFact::uniform(shape, a.mayVary || b.mayVary, divisor);
  r.elemKnown = varying.elemKnown && varying.coef.size() == shape.size();
  if (!r.elemKnown) {
    r.coef.clear();
    return r;
  }
  for (size_t d = 0; d < shape.size(); ++d)
    r.coef[d] = varying.coef[d].isZero()
                    ? Coef::exact(0)
                    : Coef::unknown(multiplyDivisors(varying.coef[d].allValuesDivisor(),
                                                     factor.uniformDivisor));
  return r;
}

AddressFact reshapeTo(const AddressFact &a, ArrayRef<int64_t> shape) {
  AddressFact r = a;
  r.shape.assign(shape.begin(), shape.end());
  if (!a.elemKnown)
    return canonical(r);
  if (a.shape.empty()) { // splat of a scalar
    r.coef = zeros(shape);
    return r;
  }
  if (a.shape.size() != shape.size()) {
    r.elemKnown = false;
    return canonical(r);
  }
  for (size_t d = 0; d < shape.size(); ++d)
    if (a.shape[d] == 1 && shape[d] != 1)
      r.coef[d] = Coef::exact(0); // broadcast: the index was always 0
  return r;
}

AddressFact expandDims(const AddressFact &a, int axis, ArrayRef<int64_t> shape) {
  AddressFact r = a;
  r.shape.assign(shape.begin(), shape.end());
  if (!a.elemKnown || axis < 0 || axis > int(a.coef.size()) ||
      a.coef.size() + 1 != shape.size()) {
    r.elemKnown = false;
    return canonical(r);
  }
  r.coef.insert(r.coef.begin() + axis, Coef::exact(0));
  return r;
}

AddressFact remainder(const AddressFact &a, const AddressFact &m, ArrayRef<int64_t> shape) {
  // (u + k * i_d) % m along one dimension d: runs of consecutive values
  // (k = 1) as long as a multiple of m cannot fall inside, i.e. of the
  // power of two dividing both u and m, starting at multiples of it.
  AddressFact r = AddressFact::unknown(shape);
  r.mayVary = a.mayVary || m.mayVary;
  if (!a.elemKnown || a.coef.size() != shape.size() || !m.isUniformAcrossElements())
    return r;
  int dim = -1;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] > 1 && !a.coef[d].isZero()) {
      if (dim >= 0 || !a.coef[d].known)
        return r;
      dim = int(d);
    }
  if (dim < 0)
    return r;
  int64_t g = std::min(a.uniformDivisor, m.uniformDivisor);
  r = AddressFact::constant(shape, 0);
  r.affine = true; // c = 0: the whole value is the dimension's contribution
  r.mayVary = a.mayVary || m.mayVary;
  int64_t k = a.coef[dim].value;
  r.coef[dim] = k == 1 ? Coef::runs(g, 1, std::min<int64_t>(g, shape[dim]))
                       : Coef::unknown(std::min(g, powerOfTwoDivisor(k)));
  return r;
}

} // namespace mlir::triton::tlx::addresses
