"""The device side of ring kernels: one engine per backend, and the loop they run.

``base`` is the contract every engine fills (``Engine``, ``EngineOptions``,
``engine_class``); ``cpu``, ``cuda`` and ``metal`` are the backends, each imported only
when a kernel of that backend is launched (with ``cuda_kernel``, ``mlx_batch`` and
``mlx_memory`` beside them); ``loop`` is the consumer loop the compiled backends share,
``doorbell`` the cpu loop's wake-up and ``exit_wait`` the workers the interpreter waits
for at exit. This layer imports ``pdc.ring.protocol`` and ``pdc.ring.handlers`` only;
importing it imports no GPU library.
"""
