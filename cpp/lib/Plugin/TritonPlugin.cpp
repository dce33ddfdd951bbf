// The one symbol libtriton looks up: tritonGetPluginInfo (plugin API v2).
//
// The structs it returns are triton's (TritonByName/PluginInfo.h, checked
// by the layout gate).

#include "TritonByName/PluginInfo.h"
#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#ifndef TLX_ALIAS_VERSION
#define TLX_ALIAS_VERSION "0.0.0"
#endif
#if !defined(TLX_TRITON_VERSION) || !defined(TLX_TRITON_ABI_FAMILY)
#error "TLX_TRITON_VERSION and TLX_TRITON_ABI_FAMILY (the triton the plugin is built for, and the proven versions of its ABI) come from CMake"
#endif

namespace {

using tlx_alias::mirror::DialectInfo;
using tlx_alias::mirror::PassInfo;
using tlx_alias::mirror::PluginInfo;

void registerTLXDialect(mlir::DialectRegistry *registry) {
  registry->insert<mlir::triton::tlx::TLXDialect>();
}

// Stands in for a pass whose options did not parse: running it fails with
// the parser's message, so the caller gets a Python RuntimeError from
// `pm.run` (the plugin API gives addPass no way to report an error).
class BadPassOptions
    : public mlir::PassWrapper<BadPassOptions, mlir::OperationPass<>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BadPassOptions)
  explicit BadPassOptions(std::string message) : message(std::move(message)) {}
  llvm::StringRef getArgument() const override { return "tlx-bad-pass-options"; }
  void runOnOperation() override {
    // At no op: the module is not the problem, and would be printed.
    mlir::emitError(mlir::UnknownLoc::get(&getContext()), message);
    signalPassFailure();
  }

private:
  std::string message;
};

// Python passes options as ["name=value", ...]; forwarded to the pass.
template <std::unique_ptr<mlir::Pass> (*create)()>
void addPassWithOptions(mlir::PassManager *pm,
                        const std::vector<std::string> &args) {
  std::unique_ptr<mlir::Pass> pass = create();
  std::string options, errors;
  for (const std::string &arg : args)
    options += (options.empty() ? "" : " ") + arg;
  if (!options.empty() &&
      mlir::failed(pass->initializeOptions(options, [&](const llvm::Twine &msg) {
        errors += llvm::StringRef(msg.str()).trim().str();
        return mlir::failure();
      }))) {
    pm->addPass(std::make_unique<BadPassOptions>(
        "tlx-alias: bad options for " + pass->getArgument().str() + " '" +
        options + "'" + (errors.empty() ? "" : ": " + errors)));
    return;
  }
  pm->addPass(std::move(pass));
}

void registerAllTLXPasses() { mlir::triton::tlx::registerTLXPasses(); }

// Makes the TTIR->TTGIR conversion already in `pm` leave unrealized casts in
// front of tlx ops (its `enable-source-remat` option, which no textual
// pipeline can reach): the tlx conversions consume them.
void keepCastsForTLXOps(mlir::PassManager *pm, const std::vector<std::string> &args) {
  for (mlir::Pass &pass : *pm) {
    if (pass.getArgument() != "convert-triton-to-tritongpu")
      continue;
    if (mlir::failed(pass.initializeOptions(
            "enable-source-remat=true", [](const llvm::Twine &msg) {
              llvm::errs() << msg << "\n";
              return mlir::failure();
            })))
      llvm::report_fatal_error("tlx-alias: cannot configure "
                               "convert-triton-to-tritongpu");
  }
}

// For @triton.jit kernels, added right after triton's TTIR->TTGIR conversion:
// keeps casts in front of tlx ops, then converts the MMA, TMA and local
// memory ops and lowers the storage aliases.
void addJitLowering(mlir::PassManager *pm, const std::vector<std::string> &args) {
  keepCastsForTLXOps(pm, {});
  // MMA first: its operands may still be tlx.local_load results, which the
  // local-memory conversion then loads straight into the layout wgmma needs.
  pm->addPass(mlir::triton::tlx::createTLXConvertMMA());
  pm->addPass(mlir::triton::tlx::createTLXConvertTMA());
  pm->addPass(mlir::triton::tlx::createTLXConvertLocalMemory());
  addPassWithOptions<mlir::triton::tlx::createTLXLower>(pm, args);
}

const PassInfo kPasses[] = {
    {"tlx_storage_alias_lowering", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXStorageAliasLowering>,
     &registerAllTLXPasses},
    {"tlx_rewrite_local_alias", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXRewriteLocalAlias>,
     &registerAllTLXPasses},
    {"tlx_lower", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXLower>,
     &registerAllTLXPasses},
    {"tlx_convert_local_memory", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXConvertLocalMemory>,
     &registerAllTLXPasses},
    {"tlx_convert_mma", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXConvertMMA>,
     &registerAllTLXPasses},
    {"tlx_convert_tma", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXConvertTMA>,
     &registerAllTLXPasses},
    {"tlx_convert_async_waits", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXConvertAsyncWaits>,
     &registerAllTLXPasses},
    {"tlx_jit_lowering", TLX_ALIAS_VERSION, &addJitLowering,
     &registerAllTLXPasses},
    {"tlx_keep_casts_for_tlx_ops", TLX_ALIAS_VERSION, &keepCastsForTLXOps,
     &registerAllTLXPasses},
    {"tlx_dot_operands_in_place", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXDotOperandsInPlace>,
     &registerAllTLXPasses},
    {"tlx_check_hazards", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXCheckHazards>,
     &registerAllTLXPasses},
    {"tlx_pid_address_analysis", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXPidAddressAnalysis>,
     &registerAllTLXPasses},
    {"tlx_sync_before_leader_arrive", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXSyncBeforeLeaderArrive>,
     &registerAllTLXPasses},
    {"tlx_thread_arrives_as_expects", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXThreadArrivesAsExpects>,
     &registerAllTLXPasses},
    {"tlx_unchained_waits_as_expects", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXUnchainedWaitsAsExpects>,
     &registerAllTLXPasses},
    {"tlx_lower_thread_arrives", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXLowerThreadArrives>,
     &registerAllTLXPasses},
    {"tlx_cluster_program_ids", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXClusterProgramIds>,
     &registerAllTLXPasses},
    {"tlx_ops_as_marks", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXOpsAsMarks>,
     &registerAllTLXPasses},
    {"tlx_lower_marked_ops", TLX_ALIAS_VERSION,
     &addPassWithOptions<mlir::triton::tlx::createTLXLowerMarkedOps>,
     &registerAllTLXPasses},
};

const DialectInfo kDialects[] = {
    {"tlx", TLX_ALIAS_VERSION, &registerTLXDialect},
};

// Triton's loader takes a plugin only if it declares exactly the running
// triton's version. This one serves every proven version of its ABI family:
// tlx_alias's start-up (which checked the installed triton) names the running
// one in TLX_ALIAS_TRITON_VERSION; outside the family, or unnamed, the plugin
// declares the version it was built for (and another triton refuses it).
const char *declaredTritonVersion() {
  static const std::string version = [] {
    const char *running = std::getenv("TLX_ALIAS_TRITON_VERSION");
    llvm::SmallVector<llvm::StringRef> family;
    llvm::StringRef(TLX_TRITON_ABI_FAMILY).split(family, ',');
    if (running && llvm::is_contained(family, llvm::StringRef(running)))
      return std::string(running);
    return std::string(TLX_TRITON_VERSION);
  }();
  return version.c_str();
}

PluginInfo kPluginInfo = {
    /*apiVersion=*/2,
    /*pluginName=*/"tlx_alias",
    /*pluginVersion=*/TLX_ALIAS_VERSION,
    kPasses,
    std::size(kPasses),
    kDialects,
    std::size(kDialects),
    /*ops=*/nullptr,
    /*numOps=*/0,
    TLX_TRITON_VERSION,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const PluginInfo *
tritonGetPluginInfo() {
  kPluginInfo.tritonVersion = declaredTritonVersion();
  return &kPluginInfo;
}
