// Compiled without RTTI (like libtriton): it defines a PassInstrumentation.
#include "DiagnosticCapture.h"

#include "tlx_alias/Support/Location.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <mutex>
#include <optional>

using namespace mlir;

namespace tlx_alias {

void appendDiagnostic(std::string &out, Diagnostic &diag) {
  llvm::raw_string_ostream os(out);
  const char *severity = "error";
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Warning:
    severity = "warning";
    break;
  case DiagnosticSeverity::Remark:
    severity = "remark";
    break;
  case DiagnosticSeverity::Note:
    severity = "note";
    break;
  default:
    break;
  }
  os << describeLocation(diag.getLocation()) << ": " << severity << ": "
     << diag << "\n";
  for (Diagnostic &note : diag.getNotes())
    os << describeLocation(note.getLocation()) << ": note: " << note << "\n";
}

// Two locks, never held together: `handlerLock` around (un)registering (which
// takes the engine's lock), `messagesLock` inside the handler (called under
// the engine's lock).
struct DiagnosticCapture::State {
  std::mutex handlerLock;
  MLIRContext *context = nullptr;
  std::optional<DiagnosticEngine::HandlerID> handler;
  bool released = false;

  std::mutex messagesLock;
  std::string messages;

  static void install(const std::shared_ptr<State> &state,
                      MLIRContext *context) {
    std::lock_guard<std::mutex> lock(state->handlerLock);
    if (state->released)
      return;
    if (state->handler)
      state->context->getDiagEngine().eraseHandler(*state->handler);
    state->context = context;
    // Errors (with their notes) are ours; everything else goes on to
    // triton's handler, which shows what MLIR_ENABLE_DIAGNOSTICS asks for.
    state->handler = context->getDiagEngine().registerHandler(
        [weak = std::weak_ptr<State>(state)](Diagnostic &diag) {
          std::shared_ptr<State> self = weak.lock();
          if (!self || diag.getSeverity() != DiagnosticSeverity::Error)
            return failure();
          std::lock_guard<std::mutex> lock(self->messagesLock);
          appendDiagnostic(self->messages, diag);
          return success();
        });
  }
};

namespace {

// Installs the capture's handler when the first pass of a run starts (inside
// triton's run, after its handler was registered). Passes of nested pipelines
// may start on worker threads: only the first one installs.
class InstallHandler : public PassInstrumentation {
public:
  explicit InstallHandler(std::shared_ptr<DiagnosticCapture::State> state)
      : state(std::move(state)) {}

  void runBeforePass(Pass *, Operation *op) override {
    if (!installed.exchange(true))
      DiagnosticCapture::State::install(state, op->getContext());
  }

private:
  std::shared_ptr<DiagnosticCapture::State> state;
  std::atomic<bool> installed{false};
};

} // namespace

DiagnosticCapture::DiagnosticCapture() : state(std::make_shared<State>()) {}

void DiagnosticCapture::attach(PassManager &pm) {
  pm.addInstrumentation(std::make_unique<InstallHandler>(state));
}

std::string DiagnosticCapture::release() {
  {
    std::lock_guard<std::mutex> lock(state->handlerLock);
    state->released = true;
    if (state->handler)
      state->context->getDiagEngine().eraseHandler(*state->handler);
    state->handler.reset();
  }
  std::lock_guard<std::mutex> lock(state->messagesLock);
  return std::exchange(state->messages, std::string());
}

} // namespace tlx_alias
