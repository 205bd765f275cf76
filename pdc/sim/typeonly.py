"""numba-cuda's compile pipeline stopped once the kernel is typed: all the simulator reads.

``numba.cuda.compiler.compile_cuda`` runs numba-cuda's whole pipeline: bytecode to IR, type
inference and rewrites, then lowering to LLVM IR (the lowering alone is about 40% of the
time). The simulator executes the typed IR and never the LLVM, and the compile gate
(pdc.grade.gate, pdc.ptx) lowers the kernel to PTX separately, so here the pipeline is
numba-cuda's own, pass for pass, up to and including its type annotation, and stops there.
Written by hand because numba-cuda offers no entry point that stops after typing; the
passes, flags and calling convention are those ``compile_cuda`` uses.
"""

from __future__ import annotations

import types
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _compiler_class():
    from numba.cuda.compiler import CUDACompiler
    from numba.cuda.core.compiler import _EarlyPipelineCompletion
    from numba.cuda.core.compiler_machinery import FunctionPass, PassManager, register_pass
    from numba.cuda.core.typed_passes import AnnotateTypes, IRLegalization

    @register_pass(mutates_CFG=False, analysis_only=True)
    class StopAfterTyping(FunctionPass):
        """Ends the pipeline with what the simulator needs: the annotated, typed IR."""

        _name = "pdc_stop_after_typing"

        def __init__(self):
            FunctionPass.__init__(self)

        def run_pass(self, state):
            signature = types.SimpleNamespace(return_type=state.return_type, args=state.args)
            raise _EarlyPipelineCompletion(
                types.SimpleNamespace(type_annotation=state.type_annotation, signature=signature)
            )

    class TypingCompiler(CUDACompiler):
        """CUDACompiler's pipelines with its lowering passes replaced by StopAfterTyping."""

        def define_cuda_lowering_pipeline(self, state):
            pm = PassManager("cuda_typing_only")
            pm.add_pass(IRLegalization, "ensure IR is legal prior to lowering")
            pm.add_pass(AnnotateTypes, "annotate types")
            pm.add_pass(StopAfterTyping, "stop: the simulator runs the typed IR")
            pm.finalize()
            return pm

    return TypingCompiler


@lru_cache(maxsize=1)
def _flags_class():
    """numba-cuda's CUDAFlags, with ``values()`` in one dict merge.

    Typing looks each overload up in a cache keyed by the compile's flags, and each lookup
    hashes and compares them through ``values()``, which reads every option through its
    property, one by one: about a tenth of typing a kernel. The merge of the options'
    defaults with the values set gives the same dict (an option's getter returns its value
    when set, else its default), so hashes and comparisons are unchanged.
    """
    from numba.cuda.flags import CUDAFlags

    defaults = {name: option.default for name, option in CUDAFlags.options.items()}

    class TypingFlags(CUDAFlags):
        __slots__ = ()

        def values(self):
            return {**defaults, **self._values}

    return TypingFlags


def compile_types(pyfunc, argtypes: tuple, cc: tuple[int, int]) -> Any:
    """Type ``pyfunc`` for ``argtypes`` as ``compile_cuda(pyfunc, None, argtypes, cc=cc)``
    does, without lowering it.

    Returns:
        An object with ``type_annotation`` (blocks, typemap, calltypes) and
        ``signature.return_type``, as ``compile_cuda``'s result has.

    Raises:
        Whatever numba-cuda raises for a function it cannot type.
    """
    from numba.cuda import utils  # type: ignore[attr-defined]
    from numba.cuda.compiler import compile_extra  # type: ignore[attr-defined]
    from numba.cuda.core.callconv import CUDACallConv
    from numba.cuda.core.compiler_lock import global_compiler_lock
    from numba.cuda.descriptor import cuda_target

    flags = _flags_class()()
    flags.no_compile = True
    flags.no_cpython_wrapper = True
    flags.no_cfunc_wrapper = True
    flags.inline = "never"
    flags.error_model = "numpy"
    flags.compute_capability = cc
    targetctx = cuda_target.target_context
    with global_compiler_lock, utils.numba_target_override():
        return compile_extra(
            typingctx=cuda_target.typing_context,
            targetctx=targetctx,
            func=pyfunc,
            args=tuple(argtypes),
            return_type=None,
            flags=flags,
            locals={},
            pipeline_class=_compiler_class(),
            call_conv=CUDACallConv(targetctx),
            abi_info={},
        )
