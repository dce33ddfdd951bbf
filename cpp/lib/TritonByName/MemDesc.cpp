#include "tlx_alias/Dialect/TLX/IR/Dialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::triton::tlx {

static bool hasName(Type type, StringRef name) {
  return type.getAbstractType().getName() == name;
}

bool isMemDesc(Type type) { return type && hasName(type, "ttg.memdesc"); }

bool isTensorDesc(Type type) { return type && hasName(type, "tt.tensordesc"); }

RankedTensorType getTensorDescBlockType(Type type) {
  if (!isTensorDesc(type))
    return {};
  RankedTensorType block;
  Type element;
  Attribute layout;
  type.walkImmediateSubElements(
      [&](Attribute sub) {
        if (!layout)
          layout = sub;
      },
      [&](Type sub) {
        if (!block)
          block = dyn_cast<RankedTensorType>(sub);
        if (!element)
          element = sub;
      });
  if (block || !element)
    return block;
  // Triton 3.8 spells the block without a tensor type,
  // `!tt.tensordesc<64x64xf16[, #layout]>`: the shape is read from the text.
  std::string text = toText(type);
  StringRef rest = StringRef(text).drop_front(StringRef("!tt.tensordesc<").size());
  SmallVector<int64_t> shape;
  while (!rest.empty() && llvm::isDigit(rest.front())) {
    size_t end = rest.find_first_not_of("0123456789");
    int64_t dim;
    if (end == StringRef::npos || rest[end] != 'x' ||
        rest.take_front(end).getAsInteger(10, dim))
      return {};
    shape.push_back(dim);
    rest = rest.drop_front(end + 1);
  }
  if (shape.empty())
    return {};
  return RankedTensorType::get(shape, element, layout);
}

std::optional<StorageKind> getStorageKindOfMemorySpace(Attribute memorySpace) {
  if (!memorySpace)
    return std::nullopt;
  StringRef name = memorySpace.getAbstractAttribute().getName();
  if (name == "ttg.shared_memory")
    return StorageKind::smem;
  if (name == "ttng.tensor_memory")
    return StorageKind::tmem;
  return std::nullopt;
}

StringRef getMemorySpaceName(StorageKind kind) {
  switch (kind) {
  case StorageKind::smem:
    return "#ttg.shared_memory";
  case StorageKind::tmem:
    return "#ttng.tensor_memory";
  case StorageKind::smemCluster:
    return "#ttg.shared_cluster_memory";
  }
  return "";
}

std::string toText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::string toText(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

// Splits "a, b<c, d>, e" at the commas that are not nested in brackets.
static SmallVector<StringRef> splitTopLevel(StringRef body) {
  SmallVector<StringRef> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '<' || c == '{' || c == '[' || c == '(')
      ++depth;
    else if (c == '>' || c == '}' || c == ']' || c == ')')
      --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(body.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push_back(body.substr(start).trim());
  return parts;
}

static std::optional<SmallVector<int64_t>> parseDims(StringRef text) {
  SmallVector<StringRef> pieces;
  text.split(pieces, 'x');
  SmallVector<int64_t> dims;
  for (StringRef piece : pieces) {
    int64_t dim;
    if (piece.getAsInteger(10, dim))
      return std::nullopt;
    dims.push_back(dim);
  }
  return dims;
}

std::optional<MemDescInfo> getMemDescInfo(Type type) {
  if (!isMemDesc(type))
    return std::nullopt;
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return std::nullopt;
  MemDescInfo info;
  info.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
  info.elementType = shaped.getElementType();
  type.walkImmediateSubElements(
      [&](Attribute attr) {
        if (getStorageKindOfMemorySpace(attr) ||
            attr.getAbstractAttribute().getName().ends_with("_memory"))
          info.memorySpace = attr;
        else if (!info.encoding)
          info.encoding = attr;
      },
      [](Type) {});
  // Mutability and the alloc shape are not reachable through interfaces:
  // read them from the printed form "<dims x elt, enc, space[, mutable][, alloc]>".
  std::string text = toText(type);
  StringRef body = StringRef(text);
  size_t open = body.find('<');
  if (open == StringRef::npos || !body.ends_with(">"))
    return std::nullopt;
  body = body.slice(open + 1, body.size() - 1);
  for (StringRef part : llvm::drop_begin(splitTopLevel(body))) {
    if (part == "mutable")
      info.isMutable = true;
    else if (auto dims = parseDims(part))
      info.allocShape = *dims;
  }
  return info;
}

int64_t MemDescInfo::elementBits() const {
  if (!elementType)
    return 0;
  if (elementType.isIntOrFloat())
    return elementType.getIntOrFloatBitWidth();
  if (hasName(elementType, "tt.ptr"))
    return 64;
  return 0;
}

int64_t MemDescInfo::elementsPerBuffer() const {
  int64_t elements = 1;
  for (int64_t dim : llvm::drop_begin(shape))
    elements *= dim;
  return elements;
}

int64_t MemDescInfo::bytesPerBuffer() const {
  return llvm::divideCeil(elementsPerBuffer() * elementBits(), 8);
}

namespace {
/// Collects the diagnostics Triton's parser reports, so they can be attached
/// to our own error instead of going to stderr.
struct CapturedDiagnostics {
  CapturedDiagnostics(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          if (!messages.empty())
            messages += "; ";
          messages += diag.str();
          return success();
        }) {}
  std::string messages;
  ScopedDiagnosticHandler handler;
};
} // namespace

static std::string joinDims(ArrayRef<int64_t> dims) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(dims, os, "x");
  return text;
}

Type buildMemDesc(MLIRContext *context, const MemDescInfo &info,
                  function_ref<InFlightDiagnostic()> emitError) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "!ttg.memdesc<";
  for (int64_t dim : info.shape)
    os << dim << "x";
  os << toText(info.elementType);
  if (info.encoding)
    os << ", " << toText(info.encoding);
  if (info.memorySpace)
    os << ", " << toText(info.memorySpace);
  if (info.isMutable)
    os << ", mutable";
  if (!info.allocShape.empty() && ArrayRef(info.allocShape) != ArrayRef(info.shape))
    os << ", " << joinDims(info.allocShape);
  os << ">";
  Type type;
  std::string messages;
  {
    CapturedDiagnostics captured(context);
    size_t numRead = 0;
    type = parseType(text, context, &numRead, /*isKnownNullTerminated=*/false);
    messages = captured.messages;
  }
  if (!type && emitError)
    emitError() << "Triton rejects the memory descriptor " << text << ": "
                << messages;
  return type;
}

Attribute parseAttributeText(MLIRContext *context, StringRef text,
                             function_ref<InFlightDiagnostic()> emitError) {
  Attribute attr;
  std::string messages;
  {
    CapturedDiagnostics captured(context);
    size_t numRead = 0;
    attr = parseAttribute(text, context, Type(), &numRead,
                          /*isKnownNullTerminated=*/false);
    messages = captured.messages;
  }
  if (!attr && emitError)
    emitError() << "cannot build attribute " << text << ": " << messages;
  return attr;
}

} // namespace mlir::triton::tlx
