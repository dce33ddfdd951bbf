// Error diagnostics of triton's own pass managers, kept for the exception.
//
// Triton's `pass_manager.run` registers a diagnostic handler that prints on
// stderr and raises only "PassManager::run failed". A handler registered on
// the module's context before the run sits below it and sees nothing, so the
// capture registers its handler from a pass instrumentation, when the first
// pass starts: then it is the newest handler of that context and receives the
// errors first. Each compile has its own context, so captures of compiles in
// other threads never see each other's diagnostics.
#ifndef TLX_ALIAS_TOOLS_DIAGNOSTICCAPTURE_H
#define TLX_ALIAS_TOOLS_DIAGNOSTICCAPTURE_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>

namespace tlx_alias {

/// Appends "file:line:col: error: message" (then its notes) to `out`.
void appendDiagnostic(std::string &out, mlir::Diagnostic &diag);

class DiagnosticCapture {
public:
  DiagnosticCapture();
  /// Collect the errors of every run of `pm` (and keep collecting on its
  /// context until release()).
  void attach(mlir::PassManager &pm);
  /// Unregisters the handler and returns what it collected. Must be called
  /// while the context of the attached pass managers is alive.
  std::string release();

  struct State;

private:
  std::shared_ptr<State> state;
};

} // namespace tlx_alias

#endif // TLX_ALIAS_TOOLS_DIAGNOSTICCAPTURE_H
