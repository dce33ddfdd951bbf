"""Header deltas: PyPI MLIR/LLVM 22.1.8 headers -> the ABI of triton 3.8.0's libtriton.

triton 3.8.0 was built from LLVM 5f07f81, for which no registry has headers. Each
delta below encodes one numbered ABI fact read off 3.8.0's libtriton.so (its
DWARF, symbol table, relocations and disassembly; how the layer is selected and
checked: docs/design/abi-gate.md). apply_deltas.py copies each named header from the registry
packages into the build tree and replaces `old` (which must occur exactly `count`
times) by `new`, with a comment naming the fact. Files under this directory other
than this one (llvm/ADT/Repeated.h) are added to the overlay as they are.
"""

TRITON_VERSION = "3.8.0"

_TU_OLD_BASE = """                      llvm::PointerUnion<const Value *, const Type *,
                                         OpOperand *, detail::OpResultImpl *>,"""
_TU_NEW_BASE = """                      llvm::PointerUnion<const Value *, const Type *,
                                         OpOperand *, detail::OpResultImpl *,
                                         const llvm::Repeated<Type> *,
                                         const llvm::Repeated<Value> *>,"""
_TU_OLD_OWNER = """  using OwnerT = llvm::PointerUnion<const Value *, const Type *, OpOperand *,
                                    detail::OpResultImpl *>;"""
_TU_NEW_OWNER = """  using OwnerT = llvm::PointerUnion<const Value *, const Type *, OpOperand *,
                                    detail::OpResultImpl *,
                                    const llvm::Repeated<Type> *,
                                    const llvm::Repeated<Value> *>;"""

_VR_OLD = "PointerUnion<const Value *, OpOperand *, detail::OpResultImpl *>"
_VR_NEW = ("PointerUnion<const Value *, OpOperand *, detail::OpResultImpl *,\n"
           "                   const llvm::Repeated<Value> *>")

DELTAS = [
    # --- 1: TypeRange's owner union --------------------------------------
    dict(fact=1, file="mlir/include/mlir/IR/TypeRange.h",
         note="TypeRange's owner PointerUnion gained const Repeated<Type>* and "
              "const Repeated<Value>* (6 members: a 3-bit tag at bit 0); "
              "TypeRange::dereference_iterator/offset_base mangle with it",
         old='#include "llvm/ADT/PointerUnion.h"\n',
         new='#include "llvm/ADT/PointerUnion.h"\n#include "llvm/ADT/Repeated.h"\n'),
    dict(fact=1, file="mlir/include/mlir/IR/TypeRange.h",
         note="TypeRange's base class carries the 6-member owner union",
         old=_TU_OLD_BASE, new=_TU_NEW_BASE),
    dict(fact=1, file="mlir/include/mlir/IR/TypeRange.h",
         note="TypeRange::OwnerT is the 6-member union",
         old=_TU_OLD_OWNER, new=_TU_NEW_OWNER),
    # --- 2: ValueRange's owner union -------------------------------------
    dict(fact=2, file="mlir/include/mlir/IR/ValueRange.h",
         note="ValueRange's owner union gained const Repeated<Value>* "
              "(tag bits unchanged, mangled names change)",
         old='#include "llvm/ADT/PointerUnion.h"\n',
         new='#include "llvm/ADT/PointerUnion.h"\n#include "llvm/ADT/Repeated.h"\n'),
    dict(fact=2, file="mlir/include/mlir/IR/ValueRange.h", count=2,
         note="ValueRange's base class and OwnerT use the 4-member union",
         old=_VR_OLD, new=_VR_NEW),
    # --- 3: getOperandNumber() const --------------------------------------
    dict(fact=3, file="mlir/include/mlir/IR/Value.h",
         note="OpOperand::getOperandNumber() is const (_ZNK4mlir9OpOperand16getOperandNumberEv)",
         old="  unsigned getOperandNumber();\n", new="  unsigned getOperandNumber() const;\n"),
    dict(fact=3, file="mlir/include/mlir/IR/BlockSupport.h",
         note="BlockOperand::getOperandNumber() is const",
         old="  unsigned getOperandNumber();\n", new="  unsigned getOperandNumber() const;\n"),
    # --- 4: AsmParser vtable 0x2b0 -> 0x2c0 --------------------------------
    dict(fact=4, file="mlir/include/mlir/IR/OpImplementation.h",
         note="AsmParser vtable slot 58 (counting offset-to-top and RTTI): new pure "
              "virtual parseOptionalString(std::string*, ArrayRef<StringRef>), right "
              "after parseOptionalKeyword(StringRef*, ArrayRef<StringRef>)",
         old="""  parseOptionalKeyword(StringRef *keyword,
                       ArrayRef<StringRef> allowedValues) = 0;
""",
         new="""  parseOptionalKeyword(StringRef *keyword,
                       ArrayRef<StringRef> allowedValues) = 0;
  virtual ParseResult
  parseOptionalString(std::string *string,
                      ArrayRef<StringRef> allowedValues) = 0;
"""),
    dict(fact=4, file="mlir/include/mlir/IR/OpImplementation.h",
         note="AsmParser vtable slot 60: new pure virtual "
              "parseOptionalKeywordOrString(std::string*, ArrayRef<StringRef>)",
         old="  virtual ParseResult parseOptionalKeywordOrString(std::string *result) = 0;\n",
         new="""  virtual ParseResult parseOptionalKeywordOrString(std::string *result) = 0;
  virtual ParseResult
  parseOptionalKeywordOrString(std::string *result,
                               ArrayRef<StringRef> allowedValues) = 0;
"""),
    # --- 5: IntegerAttr::getValue() returns const APInt& -------------------
    dict(fact=5, file="mlir/include/mlir/IR/BuiltinAttributes.h.inc",
         note="IntegerAttr::getValue() returns const APInt& (same mangled name: "
              "by value it reads garbage as an APInt, bit-width assertions)",
         old="  ::llvm::APInt getValue() const;\n",
         new="  const ::llvm::APInt &getValue() const;\n"),
    # --- 6: properties: OpaqueProperties -> PropertyRef {TypeID, void*} ----
    dict(fact=6, file="mlir/include/mlir/IR/OperationSupport.h",
         note="OpaqueProperties became PropertyRef {TypeID typeID @0; void *data @8}, "
              "16 bytes passed in two registers, in every properties hook",
         old="""class OpaqueProperties {
public:
  OpaqueProperties(void *prop) : properties(prop) {}
  operator bool() const { return properties != nullptr; }
  template <typename Dest>
  Dest as() const {
    return static_cast<Dest>(const_cast<void *>(properties));
  }

private:
  void *properties;
};
""",
         new="""class PropertyRef {
public:
  PropertyRef(void *prop) : typeID(), data(prop) {}
  PropertyRef(TypeID typeID, void *prop) : typeID(typeID), data(prop) {}
  operator bool() const { return data != nullptr; }
  TypeID getTypeID() const { return typeID; }
  template <typename Dest>
  Dest as() const {
    return static_cast<Dest>(const_cast<void *>(data));
  }

private:
  TypeID typeID;
  void *data;
};
using OpaqueProperties = PropertyRef;
"""),
    dict(fact=6, file="mlir/include/mlir/IR/OperationSupport.h",
         note="OperationName::Impl gained `TypeID propertiesTypeID` at +0x70 (size 120)",
         old="    ArrayRef<StringAttr> attributeNames;\n",
         new="""    ArrayRef<StringAttr> attributeNames;

    /// The TypeID of the op's properties (set by Model).
    TypeID propertiesTypeID;

  public:
    TypeID getPropertiesTypeID() const { return propertiesTypeID; }
"""),
    dict(fact=6, file="mlir/include/mlir/IR/OperationSupport.h",
         note="Model's constructor sets Impl::propertiesTypeID to its Properties' TypeID",
         old="""        : Impl(ConcreteOp::getOperationName(), dialect,
               TypeID::get<ConcreteOp>(), ConcreteOp::getInterfaceMap()) {}
""",
         new="""        : Impl(ConcreteOp::getOperationName(), dialect,
               TypeID::get<ConcreteOp>(), ConcreteOp::getInterfaceMap()) {
      this->propertiesTypeID = TypeID::get<
          typename ConcreteOp::template InferredProperties<ConcreteOp>>();
    }
"""),
    dict(fact=6, file="mlir/include/mlir/IR/OperationSupport.h",
         note="OperationName::getPropertiesTypeID() reads Impl::propertiesTypeID",
         old="  TypeID getTypeID() const { return getImpl()->getTypeID(); }\n",
         new="  TypeID getTypeID() const { return getImpl()->getTypeID(); }\n"
             "  TypeID getPropertiesTypeID() const { return getImpl()->getPropertiesTypeID(); }\n"),
    dict(fact=6, file="mlir/include/mlir/IR/OperationSupport.h",
         note="OperationState holds one PropertyRef {typeID @0x100, data @0x108} "
              "(22.1.8: void* @0x100, TypeID @0x108)",
         old="""  OpaqueProperties properties = nullptr;
  TypeID propertiesId;
""",
         new="""  PropertyRef properties = nullptr;
"""),
    dict(fact=6, file="mlir/include/mlir/IR/OperationSupport.h",
         note="the properties' TypeID lives in the PropertyRef",
         old="      propertiesId = TypeID::get<T>();\n",
         new="      properties = PropertyRef(TypeID::get<T>(), properties.as<void *>());\n"),
    dict(fact=6, file="mlir/include/mlir/IR/OperationSupport.h",
         note="the properties' TypeID lives in the PropertyRef",
         old="    assert(propertiesId == TypeID::get<T>() && \"Inconsistent properties\");\n",
         new="    assert(properties.getTypeID() == TypeID::get<T>() && \"Inconsistent properties\");\n"),
    dict(fact=6, file="mlir/include/mlir/IR/OperationSupport.h",
         note="the properties' TypeID lives in the PropertyRef",
         old="    propertiesId = TypeID::get<T>();\n",
         new="    properties = PropertyRef(TypeID::get<T>(), properties.as<void *>());\n"),
    dict(fact=6, file="mlir/include/mlir/IR/Operation.h",
         note="an op's properties storage is handed out as PropertyRef{name's properties TypeID, data}",
         old="""      return {reinterpret_cast<void *>(const_cast<detail::OpProperties *>(
          getTrailingObjects<detail::OpProperties>()))};""",
         new="""      return {name.getPropertiesTypeID(),
              reinterpret_cast<void *>(const_cast<detail::OpProperties *>(
                  getTrailingObjects<detail::OpProperties>()))};"""),
    dict(fact=6, file="mlir/include/mlir/IR/Operation.h",
         note="an op's properties storage is handed out as PropertyRef{name's properties TypeID, data}",
         old="""    return {
        reinterpret_cast<void *>(getTrailingObjects<detail::OpProperties>())};""",
         new="""    return {name.getPropertiesTypeID(),
            reinterpret_cast<void *>(getTrailingObjects<detail::OpProperties>())};"""),
    # --- 7: SideEffects::Resource vtable 5 -> 7 slots ----------------------
    dict(fact=7, file="mlir/include/mlir/Interfaces/SideEffectInterfaces.h",
         note="Resource::getName() is const; getParent() const (default: DefaultResource) and "
              "isAddressable() const (default: true) follow it in the vtable",
         old="  virtual StringRef getName() = 0;\n",
         new="""  virtual StringRef getName() const = 0;
  virtual Resource *getParent() const;
  virtual bool isAddressable() const { return true; }
"""),
    dict(fact=7, file="mlir/include/mlir/Interfaces/SideEffectInterfaces.h",
         note="DefaultResource::getName() const; DefaultResource::getParent() is nullptr",
         old='  StringRef getName() final { return "<Default>"; }\n',
         new='  StringRef getName() const final { return "<Default>"; }\n'
             '  Resource *getParent() const final { return nullptr; }\n'),
    dict(fact=7, file="mlir/include/mlir/Interfaces/SideEffectInterfaces.h",
         note="AutomaticAllocationScopeResource::getName() const; Resource::getParent() "
              "returns DefaultResource::get() (inline in libtriton)",
         old='  StringRef getName() final { return "AutomaticAllocationScope"; }\n};\n',
         new='  StringRef getName() const final { return "AutomaticAllocationScope"; }\n};\n\n'
             'inline Resource *Resource::getParent() const { return DefaultResource::get(); }\n'),
    # --- 8: SmallPtrSet without tombstones -------------------------------
    dict(fact=8, file="llvm/include/llvm/ADT/SmallPtrSet.h",
         note="SmallPtrSetImplBase lost NumTombstones: IsSmall moved 28 -> 24 (size 32)",
         old="""  unsigned NumEntries;
  /// Number of tombstones in CurArray.
  unsigned NumTombstones;
""",
         new="  unsigned NumEntries;\n"),
    dict(fact=8, file="llvm/include/llvm/ADT/SmallPtrSet.h",
         note="no tombstone count to initialize",
         old="""        NumTombstones(0), IsSmall(true) {""", new="""        IsSmall(true) {"""),
    dict(fact=8, file="llvm/include/llvm/ADT/SmallPtrSet.h",
         note="no tombstone count to clear",
         old="""    NumEntries = 0;
    NumTombstones = 0;
""", new="""    NumEntries = 0;
"""),
    dict(fact=8, file="llvm/include/llvm/ADT/SmallPtrSet.h",
         note="big-set erase: libtriton's out-of-line eraseFromBucket (linear probing, "
              "backward shift; it leaves NumEntries and the epoch to the caller)",
         old="""    *const_cast<const void **>(Bucket) = getTombstoneMarker();
    NumTombstones++;
    --NumEntries;
""",
         new="""    eraseFromBucket(const_cast<const void **>(Bucket));
    --NumEntries;
"""),
    dict(fact=8, file="llvm/include/llvm/ADT/SmallPtrSet.h",
         note="declare libtriton's SmallPtrSetImplBase::eraseFromBucket(const void**)",
         old="  LLVM_ABI const void *const *doFind(const void *Ptr) const;\n",
         new="  LLVM_ABI const void *const *doFind(const void *Ptr) const;\n\n"
             "protected:\n  LLVM_ABI void eraseFromBucket(const void **Bucket);\n\nprivate:\n"),
    dict(fact=8, file="llvm/include/llvm/ADT/SmallPtrSet.h",
         note="big-set remove_if: no tombstones; erase matches one by one through "
              "eraseFromBucket (a backward shift may move an unvisited entry into a visited "
              "bucket, so rescan until nothing matches)",
         old="""    for (const void *&Bucket : buckets()) {
      if (Bucket == getTombstoneMarker() || Bucket == getEmptyMarker())
        continue;
      PtrType Ptr = PtrTraits::getFromVoidPointer(const_cast<void *>(Bucket));
      if (P(Ptr)) {
        Bucket = getTombstoneMarker();
        ++NumTombstones;
        --NumEntries;
        incrementEpoch();
        Removed = true;
      }
    }
    return Removed;""",
         new="""    for (bool again = true; again;) {
      again = false;
      for (const void *&Bucket : buckets()) {
        if (Bucket == getEmptyMarker())
          continue;
        PtrType Ptr = PtrTraits::getFromVoidPointer(const_cast<void *>(Bucket));
        if (P(Ptr)) {
          eraseFromBucket(&Bucket);
          --NumEntries;
          incrementEpoch();
          Removed = again = true;
          break;
        }
      }
    }
    return Removed;"""),

    # --- 9: DenseMap without tombstones, linear probing, new pointer hash ---
    dict(fact=9, file="llvm/include/llvm/ADT/DenseMap.h",
         note="DenseMap lost NumTombstones (32 -> 24 bytes; cl::SubCommand 168 -> 160, "
              "PassOptions 192 -> 184, OperationPass<ModuleOp> 352 -> 344, ParserConfig 184 -> 176)",
         old="""  BucketT *Buckets;
  unsigned NumEntries;
  unsigned NumTombstones;
  unsigned NumBuckets;
""",
         new="""  BucketT *Buckets;
  unsigned NumEntries;
  unsigned NumBuckets;
"""),
    dict(fact=9, file="llvm/include/llvm/ADT/DenseMap.h",
         note="DenseMap: no tombstone count to swap",
         old="""    std::swap(NumEntries, RHS.NumEntries);
    std::swap(NumTombstones, RHS.NumTombstones);
""",
         new="""    std::swap(NumEntries, RHS.NumEntries);
"""),
    dict(fact=9, file="llvm/include/llvm/ADT/DenseMap.h", count=2,
         note="no tombstones: the count is always 0",
         old="""  unsigned getNumTombstones() const { return NumTombstones; }

  void setNumTombstones(unsigned Num) { NumTombstones = Num; }
""",
         new="""  unsigned getNumTombstones() const { return 0; }

  void setNumTombstones(unsigned Num) { assert(Num == 0 && "no tombstones"); }
"""),
    dict(fact=9, file="llvm/include/llvm/ADT/DenseMap.h",
         note="SmallDenseMap lost NumTombstones too",
         old="""  unsigned NumEntries : 31;
  unsigned NumTombstones;
""",
         new="""  unsigned NumEntries : 31;
"""),
    dict(fact=9, file="llvm/include/llvm/ADT/DenseMap.h",
         note="SmallDenseMap: no tombstone count to swap",
         old="""    NumEntries = TmpNumEntries;
    std::swap(NumTombstones, RHS.NumTombstones);
""",
         new="""    NumEntries = TmpNumEntries;
"""),
    dict(fact=9, file="llvm/include/llvm/ADT/DenseMap.h",
         note="SmallDenseMap: no tombstone count to move",
         old="""    NumEntries = Other.NumEntries;
    NumTombstones = Other.NumTombstones;
""",
         new="""    NumEntries = Other.NumEntries;
"""),
    dict(fact=9, file="llvm/include/llvm/ADT/DenseMap.h", count=2,
         note="linear probing (libtriton's LookupBucketFor steps by 1)",
         old="BucketNo += ProbeAmt++;", new="BucketNo += ProbeAmt;"),
    dict(fact=9, file="llvm/include/llvm/ADT/DenseMap.h",
         note="erase without tombstones: backward-shift deletion, as libtriton's "
              "SmallPtrSetImplBase::eraseFromBucket does (linear probing keeps every key "
              "reachable from its home bucket)",
         old="""    TheBucket->getSecond().~ValueT();
    TheBucket->getFirst() = KeyInfoT::getTombstoneKey();
    decrementNumEntries();
    incrementNumTombstones();
    return true;
  }
  void erase(iterator I) {
    BucketT *TheBucket = &*I;
    TheBucket->getSecond().~ValueT();
    TheBucket->getFirst() = KeyInfoT::getTombstoneKey();
    decrementNumEntries();
    incrementNumTombstones();
  }
""",
         new="""    TheBucket->getSecond().~ValueT();
    eraseBucketTLX(TheBucket);
    decrementNumEntries();
    return true;
  }
  void erase(iterator I) {
    BucketT *TheBucket = &*I;
    TheBucket->getSecond().~ValueT();
    eraseBucketTLX(TheBucket);
    decrementNumEntries();
  }

private:
  // The bucket's value is destroyed; its key goes. Later keys of its probe
  // run move back into the hole where their home bucket allows.
  void eraseBucketTLX(BucketT *Hole) {
    BucketT *Buckets = getBuckets();
    const unsigned Mask = getNumBuckets() - 1;
    const KeyT EmptyKey = KeyInfoT::getEmptyKey();
    unsigned I = Hole - Buckets;
    for (unsigned J = (I + 1) & Mask;
         !KeyInfoT::isEqual(Buckets[J].getFirst(), EmptyKey); J = (J + 1) & Mask) {
      unsigned Home = KeyInfoT::getHashValue(Buckets[J].getFirst()) & Mask;
      if (((I - Home) & Mask) >= ((J - Home) & Mask))
        continue;
      Buckets[I].getFirst() = std::move(Buckets[J].getFirst());
      ::new (&Buckets[I].getSecond()) ValueT(std::move(Buckets[J].getSecond()));
      Buckets[J].getSecond().~ValueT();
      I = J;
    }
    Buckets[I].getFirst() = EmptyKey;
  }

public:
"""),
    dict(fact=9, file="llvm/include/llvm/ADT/DenseMapInfo.h",
         note="pointer keys hash with llvm::hash_value (hash_16_bytes of the seeded "
              "halves, truncated), was (p >> 4) ^ (p >> 9); maps filled on one side of "
              "the plugin boundary are probed on the other (IRMapping in clone)",
         old="""  static unsigned getHashValue(const T *PtrVal) {
    return (unsigned((uintptr_t)PtrVal) >> 4) ^
           (unsigned((uintptr_t)PtrVal) >> 9);
  }
""",
         new="""  static unsigned getHashValue(const T *PtrVal) {
    return static_cast<unsigned>(
        ::llvm::hashing::detail::hash_integer_value(
            static_cast<uint64_t>(reinterpret_cast<uintptr_t>(PtrVal))));
  }
"""),
    dict(fact=9, file="llvm/include/llvm/ADT/DenseMapInfo.h",
         note="the pointer hash needs Hashing.h's hash_integer_value",
         old="#include <cassert>\n", new="#include \"llvm/ADT/Hashing.h\"\n#include <cassert>\n"),
    # --- 10: MemoryBuffer's vtable (found by the layout gate) ---------------
    dict(fact=10, file="llvm/include/llvm/Support/MemoryBuffer.h",
         note="MemoryBuffer gained virtual randomAccessIfMmap() after willNeedIfMmap(): "
              "7 virtual slots (vtable 72 bytes), getBufferKind moved from slot 5 to 6 "
              "(libtriton's vtable relocations); _opt reads files through getMemBufferCopy",
         old="  virtual void willNeedIfMmap() {}\n",
         new="  virtual void willNeedIfMmap() {}\n\n  virtual void randomAccessIfMmap() {}\n"),
]
