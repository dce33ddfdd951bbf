// triton's plugin API v2 structs (include/triton/Tools/PluginUtils.h,
// mlir::triton::plugin), as the plugin fills them and tlx-opt reads them.
// The layout gate compares each with libtriton's own DWARF (layout_gate.py:
// MIRRORS), member names included; the static_asserts pin what the loader
// reads on every triton the project supports.
#ifndef TLX_ALIAS_TRITONBYNAME_PLUGININFO_H
#define TLX_ALIAS_TRITONBYNAME_PLUGININFO_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class PassManager;
class Value;
} // namespace mlir

namespace tlx_alias::mirror {

class TritonOpBuilder; // only passed through by reference

struct PassInfo {
  const char *name;
  const char *version;
  void (*addPass)(mlir::PassManager *, const std::vector<std::string> &);
  void (*registerPass)();
};

struct DialectInfo {
  const char *name;
  const char *version;
  void (*registerDialect)(mlir::DialectRegistry *);
};

struct OpInfo {
  const char *name;
  void (*addOp)(TritonOpBuilder &, std::vector<mlir::Value> &);
};

struct PluginInfo {
  uint32_t apiVersion;
  const char *pluginName;
  const char *pluginVersion;
  const PassInfo *passes;
  size_t numPasses;
  const DialectInfo *dialects;
  size_t numDialects;
  const OpInfo *ops;
  size_t numOps;
  const char *tritonVersion;
};

static_assert(sizeof(PassInfo) == 32 && offsetof(PassInfo, addPass) == 16);
static_assert(sizeof(DialectInfo) == 24);
static_assert(sizeof(OpInfo) == 16);
static_assert(offsetof(PluginInfo, passes) == 0x18 && offsetof(PluginInfo, dialects) == 0x28 &&
              offsetof(PluginInfo, ops) == 0x38 && offsetof(PluginInfo, tritonVersion) == 0x48);

/// The one symbol libtriton looks up in a plugin.
using GetPluginInfo = const PluginInfo *(*)();
constexpr const char *kGetPluginInfoSymbol = "tritonGetPluginInfo";

} // namespace tlx_alias::mirror

#endif // TLX_ALIAS_TRITONBYNAME_PLUGININFO_H
