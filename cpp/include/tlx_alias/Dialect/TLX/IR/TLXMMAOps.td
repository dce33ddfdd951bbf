#ifndef TLX_MMA_OPS_TD
#define TLX_MMA_OPS_TD

// Asynchronous warp-group MMA (Hopper wgmma), before tensors have layouts.

def TLX_AsyncDotOp : TLX_Op<"async_dot", [MemoryEffects<[MemRead<DefaultResource>]>]> {
  let summary = "Start a warp-group MMA: d = a * b (+ c) (TTIR; layouts chosen later)";
  let description = [{
    What `tlx.async_dot(A, B, acc)` emits in a `@triton.jit` kernel. `a` is
    one shared-memory buffer or a tensor (registers), `b` one shared-memory
    buffer, `c` the accumulator tensor. The MMA runs asynchronously: its
    result may only be read after a `tlx.async_dot_wait` that covers it.
    `use_acc` (i1) false ignores `c`.

    Right after Triton's TTIR->TTGIR conversion, `tlx-convert-mma` turns it
    into `ttng.warp_group_dot {isAsync = true}` with Triton's Hopper MMA
    layout (`#ttg.nvidia_mma` version 3) for the accumulator and the
    dot-operand layout for a register `a`.

    ```mlir
    %d = tlx.async_dot %a, %b, %c : !ttg.memdesc<128x64xf16, #nvmma, #smem, mutable>, !ttg.memdesc<64x128xf16, #nvmma, #smem, mutable>, tensor<128x128xf32> -> tensor<128x128xf32>
    ```
  }];
  let arguments = (ins
    AnyType:$a,
    TLX_MemDesc:$b,
    AnyRankedTensor:$c,
    Optional<I1>:$use_acc,
    DefaultValuedAttr<TLX_InputPrecisionAttr, "::mlir::triton::tlx::InputPrecision::ieee">:$input_precision,
    DefaultValuedAttr<I32Attr, "0">:$max_num_imprecise_acc
  );
  let results = (outs AnyRankedTensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`,` $use_acc^)? attr-dict `:` type($a) `,` type($b) `,` type($c) `->` type($d)
  }];
  let hasVerifier = 1;
}

def TLX_AsyncDotWaitOp : TLX_Op<"async_dot_wait", [AllTypesMatch<["inputs", "outputs"]>,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Wait until at most `pendings` async_dots are in flight (TTIR)";
  let description = [{
    What `tlx.async_dot_wait(pendings, inp)` emits. The results are the
    inputs, available once the wait returns. `tlx-convert-mma` turns it into
    `ttng.warp_group_dot_wait` (wgmma.wait_group) of the encoded inputs.

    ```mlir
    %r = tlx.async_dot_wait %d {pendings = 1 : i32} : tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs, I32Attr:$pendings);
  let results = (outs Variadic<AnyType>:$outputs);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

#endif // TLX_MMA_OPS_TD
