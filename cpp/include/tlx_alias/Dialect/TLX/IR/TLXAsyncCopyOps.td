#ifndef TLX_ASYNC_COPY_OPS_TD
#define TLX_ASYNC_COPY_OPS_TD

def TLX_AsyncLoadWaitGroupOp : TLX_Op<"async_load_wait_group",
    [MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Wait until at most `pendings` cp.async groups are in flight";
  let description = [{
    What `tlx.async_load_wait_group(pendings)` emits. Triton's software
    pipeliner recomputes the count of every `ttg.async_wait` from its tokens
    (a wait without tokens becomes `num = 0`, draining the pipeline), so the
    count the kernel author wrote stays in this op until
    `tlx-convert-async-waits`, run right after Triton's pipeliner, turns it
    into `ttg.async_wait {num = pendings}`.

    ```mlir
    %t = tlx.async_load_wait_group {pendings = 2 : i32} : () -> !ttg.async.token
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$tokens, I32Attr:$pendings);
  let results = (outs AnyType:$token);
  let assemblyFormat = [{
    $tokens attr-dict `:` functional-type($tokens, $token)
  }];
  let hasVerifier = 1;
}

#endif // TLX_ASYNC_COPY_OPS_TD
