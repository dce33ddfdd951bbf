#ifndef TLX_DIALECT_TD
#define TLX_DIALECT_TD

include "mlir/IR/OpBase.td"

def TLX_Dialect : Dialect {
  let name = "tlx";
  let cppNamespace = "::mlir::triton::tlx";
  let summary = "TLX storage aliasing: buffers that share shared/tensor memory";
  let description = [{
    Kernel authors declare which local-memory buffers may share storage:

    * `tlx.storage_alias_spec` names one region of shared (smem) or tensor
      (tmem) memory, sized by the compiler or by the user;
    * `tlx.storage_alias_local_alloc` declares a multi-buffered allocation
      living in that region;
    * `tlx.reuse_group` trees say which allocations overlap (`shared`) and
      which must not (`distinct`);
    * `tlx.set_buffer_overlap` attaches such a tree to a spec.

    `tlx-storage-alias-lowering` sizes each region, assigns offsets and
    rewrites buffer indices; `tlx-rewrite-local-alias` turns the remaining
    `tlx.local_alias` views into stock `ttg.memdesc_reinterpret` ops, so the
    rest of Triton only ever sees standard TTGIR.

    Triton's own types (`!ttg.memdesc`) are used through MLIR interfaces and
    by name only: this dialect is built without Triton headers.
  }];
  let useDefaultTypePrinterParser = 1;
}

class TLX_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TLX_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class TLX_Op<string mnemonic, list<Trait> traits = []>
    : Op<TLX_Dialect, mnemonic, traits>;

#endif // TLX_DIALECT_TD
