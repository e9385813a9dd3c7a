"""On-demand benchmarks of the bot (``python -m benchmarks.run``); not part of the tests.

One module per figure group, each with ``NAME``, ``FIGURES`` and ``run(quick)``; the
shared harness is :mod:`benchmarks.harness` (figures, the bot under test) with
:mod:`benchmarks.load` (requests from another process), :mod:`benchmarks.corpus`
(realistic text) and :mod:`benchmarks.stores` (populated, cached stores).
"""

__all__: list[str] = []
