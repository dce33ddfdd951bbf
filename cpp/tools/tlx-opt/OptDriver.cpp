// tlx-opt's engine: parse (optionally split) MLIR, run a pass pipeline, print,
// or check `expected-*` diagnostics -- on a context that triton's
// `ir.load_dialects` filled with every Triton dialect plus the tlx plugin.
//
// libtriton exports neither MlirOptMain nor splitAndProcessBuffer, so the
// splitting and main loop are done here.

#include "DiagnosticCapture.h"
#include "TritonByName/PluginInfo.h"
#include "TritonByName/TritonObjects.h"
#include "tlx_alias/Support/Location.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir;

namespace {

constexpr llvm::StringLiteral kSplitMarker = "// -----";

// MLIR's common passes are compiled into libtriton but registered by name only
// if someone asks; these are the ones an opt user reaches for.
void registerCommonPasses() {
  static bool done = [] {
    registerPass([] { return createCanonicalizerPass(); });
    registerPass([] { return createCSEPass(); });
    registerPass([] { return createSCCPPass(); });
    registerPass([] { return createSymbolDCEPass(); });
    registerPass([] { return createInlinerPass(); });
    registerPass([] { return createLoopInvariantCodeMotionPass(); });
    return true;
  }();
  (void)done;
}


// libtriton loads plugins for its Python API but does not put their passes in
// MLIR's registry; do it so that textual pipelines can name them.
void registerPluginPasses(const std::string &path) {
  static std::set<std::string> registered;
  if (!registered.insert(path).second)
    return;
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!handle)
    throw std::runtime_error("tlx-opt: plugin not loaded by libtriton: " + path);
  auto getInfo = reinterpret_cast<tlx_alias::mirror::GetPluginInfo>(
      dlsym(handle, tlx_alias::mirror::kGetPluginInfoSymbol));
  if (!getInfo)
    throw std::runtime_error("tlx-opt: no tritonGetPluginInfo in " + path);
  const tlx_alias::mirror::PluginInfo *info = getInfo();
  for (size_t i = 0; i < info->numPasses; ++i)
    if (info->passes[i].registerPass)
      info->passes[i].registerPass();
  dlclose(handle);
}

// Splits at lines that are exactly the marker (as mlir-opt does).
std::vector<std::string> splitInput(llvm::StringRef input) {
  std::vector<std::string> chunks;
  std::string current;
  llvm::SmallVector<llvm::StringRef> lines;
  input.split(lines, '\n');
  for (auto [i, line] : llvm::enumerate(lines)) {
    if (line.trim() == kSplitMarker) {
      chunks.push_back(current);
      current.clear();
      continue;
    }
    current += line.str();
    if (i + 1 != lines.size())
      current += "\n";
  }
  chunks.push_back(current);
  return chunks;
}

// A textual pipeline anchored on builtin.module (as "builtin.module(...)").
FailureOr<OpPassManager> parsePipeline(const std::string &pipeline,
                                       std::string *error = nullptr) {
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, errorStream);
  if (succeeded(parsed) &&
      parsed->getOpAnchorName() != ModuleOp::getOperationName()) {
    errors = "the pass pipeline must be anchored on builtin.module, as "
             "'builtin.module(...)'";
    parsed = failure();
  }
  if (error)
    *error = errors;
  return parsed;
}

// What is wrong with a pass pipeline, on one line ("" when nothing is).
// MLIR's parser reports on several lines ("<Pass-Options-Parser>: no such
// option x" then "failed to add `p` with options `x=1`"; or an error, the
// pipeline and a caret), and LLVM's option parser writes straight to stderr
// ("for the --x option: requires a value!"): collect all of it. For the
// tlx-opt command only (it briefly points fd 2 at a file), never inside a
// compile.
std::string checkPipeline(const std::string &pipeline) {
  registerCommonPasses();
  std::string error;
  llvm::errs().flush();
  std::fflush(stderr);
  int savedStderr = dup(2);
  std::FILE *optionErrors = std::tmpfile();
  if (savedStderr >= 0 && optionErrors)
    dup2(fileno(optionErrors), 2);
  bool ok = succeeded(parsePipeline(pipeline, &error));
  llvm::errs().flush();
  std::fflush(stderr);
  if (savedStderr >= 0 && optionErrors) {
    dup2(savedStderr, 2);
    std::rewind(optionErrors);
    char buffer[4096];
    size_t size;
    while ((size = std::fread(buffer, 1, sizeof(buffer), optionErrors)) > 0)
      error.append(buffer, size);
  }
  if (optionErrors)
    std::fclose(optionErrors);
  if (savedStderr >= 0)
    close(savedStderr);
  if (ok)
    return "";
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(error).split(lines, '\n', -1, /*KeepEmpty=*/false);
  std::string message;
  for (llvm::StringRef line : lines) {
    line = line.trim();
    if (size_t at = line.find("error: "); at != llvm::StringRef::npos)
      line = line.drop_front(at + strlen("error: "));
    line.consume_front("<Pass-Options-Parser>: ");
    line.consume_front(": ");
    line = line.rtrim("!");
    if (line.empty() || line.find_first_not_of("^ ") == llvm::StringRef::npos ||
        llvm::StringRef(pipeline).contains(line))
      continue;
    message += (message.empty() ? "" : "; ") + line.str();
  }
  return "invalid pass pipeline '" + pipeline + "': " +
         (message.empty() ? std::string("cannot parse it") : message);
}

struct ChunkResult {
  bool ok = true;
  std::string output;      // the printed module
  std::string diagnostics; // what the diagnostic handlers reported
};

ChunkResult processChunk(MLIRContext &context, const std::string &text,
                         const std::string &bufferName,
                         const std::string &pipeline, bool verifyDiagnostics,
                         bool printGeneric, bool printDebugInfo) {
  ChunkResult result;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, bufferName), llvm::SMLoc());

  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  std::optional<SourceMgrDiagnosticVerifierHandler> verifier;
  std::optional<SourceMgrDiagnosticHandler> reporter;
  if (verifyDiagnostics)
    verifier.emplace(sourceMgr, &context, errorStream);
  else
    reporter.emplace(sourceMgr, &context, errorStream);

  bool succeeded = false;
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (module) {
    // The pipeline names its anchor ("builtin.module(...)"): parse it on its
    // own, then run it from a pass manager anchored there.
    PassManager pm(&context, ModuleOp::getOperationName());
    if (!pipeline.empty()) {
      FailureOr<OpPassManager> parsed = parsePipeline(pipeline);
      if (failed(parsed)) {
        result.ok = false;
        result.diagnostics = "tlx-opt: " + checkPipeline(pipeline) + "\n";
        return result;
      }
      static_cast<OpPassManager &>(pm) = std::move(*parsed);
    }
    succeeded = mlir::succeeded(pm.run(*module));
    if (succeeded && !verifyDiagnostics) {
      llvm::raw_string_ostream out(result.output);
      OpPrintingFlags flags;
      flags.enableDebugInfo(printDebugInfo, /*prettyForm=*/false);
      if (printGeneric)
        flags.printGenericOpForm();
      module->print(out, flags);
      out << "\n";
    }
  }
  if (verifyDiagnostics) {
    result.ok = mlir::succeeded(verifier->verify());
  } else {
    result.ok = module && succeeded;
  }
  result.diagnostics = errors;
  return result;
}

} // namespace

PYBIND11_MODULE(_opt, m) {
  m.doc() = "tlx-opt driver (see tlx_alias.opt)";
  m.def(
      "run",
      [](py::handle pyContext, const std::string &input,
         const std::string &bufferName, const std::string &pipeline,
         bool splitInputFile, bool verifyDiagnostics, bool printGeneric,
         bool printDebugInfo) {
        registerCommonPasses();
        auto &context =
            tlx_alias::python::unwrap<MLIRContext>(pyContext, "context");
        context.printOpOnDiagnostic(!verifyDiagnostics);
        std::vector<std::string> chunks =
            splitInputFile ? splitInput(input) : std::vector<std::string>{input};
        bool ok = true;
        std::string output, diagnostics;
        for (auto [i, chunk] : llvm::enumerate(chunks)) {
          ChunkResult result =
              processChunk(context, chunk, bufferName, pipeline,
                           verifyDiagnostics, printGeneric, printDebugInfo);
          ok &= result.ok;
          if (i)
            output += kSplitMarker.str() + "\n";
          output += result.output;
          diagnostics += result.diagnostics;
        }
        return py::make_tuple(ok, output, diagnostics);
      },
      py::arg("context"), py::arg("input"), py::arg("buffer_name"),
      py::arg("pipeline"), py::arg("split_input_file") = false,
      py::arg("verify_diagnostics") = false, py::arg("print_generic") = false,
      py::arg("print_debuginfo") = false);
  m.def("register_plugin_passes", &registerPluginPasses, py::arg("path"));
  m.def(
      "run_passes",
      [](py::handle pyPassManager, py::handle pyModule) {
        auto &pm = tlx_alias::python::unwrap<PassManager>(pyPassManager,
                                                          "pass_manager");
        auto &module = tlx_alias::python::unwrap<ModuleOp>(pyModule, "module");
        // Triton reports pass failures as "PassManager::run failed" with the
        // diagnostics on stderr; keep them for the exception instead.
        std::string messages;
        ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
          if (diag.getSeverity() != DiagnosticSeverity::Error &&
              diag.getSeverity() != DiagnosticSeverity::Warning)
            return failure();
          tlx_alias::appendDiagnostic(messages, diag);
          return success();
        });
        if (failed(pm.run(module)))
          throw std::runtime_error(messages.empty() ? "pass pipeline failed"
                                                    : messages);
        return messages; // warnings
      },
      py::arg("pass_manager"), py::arg("module"),
      "Runs a triton ir.pass_manager on an ir.module; raises RuntimeError "
      "carrying the diagnostics on failure, returns warnings otherwise.");
  py::class_<tlx_alias::DiagnosticCapture>(
      m, "DiagnosticCapture",
      "Collects the errors of triton's own pass managers (see "
      "DiagnosticCapture.h): attach(pm) before pm.run, release() after.")
      .def(py::init<>())
      .def(
          "attach",
          [](tlx_alias::DiagnosticCapture &self, py::handle pyPassManager) {
            self.attach(tlx_alias::python::unwrap<PassManager>(
                pyPassManager, "pass_manager"));
          },
          py::arg("pass_manager"))
      .def("release", &tlx_alias::DiagnosticCapture::release);
  m.def("check_pipeline", &checkPipeline, py::arg("pipeline"),
        "What is wrong with a textual pass pipeline, on one line; '' when "
        "it is a valid builtin.module(...) pipeline.");
  m.def(
      "print_registered_passes",
      [] {
        registerCommonPasses();
        mlir::printRegisteredPasses();
        llvm::outs().flush();
      },
      "Prints every registered pass with its summary and options (as "
      "mlir-opt --help does) on stdout.");
  m.def("is_registered_pass", [](const std::string &name) {
    registerCommonPasses();
    return PassInfo::lookup(name) != nullptr ||
           PassPipelineInfo::lookup(name) != nullptr;
  });
}
