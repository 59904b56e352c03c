"""rrg: ripgrep in relevance order.

The package is split one job per module; ``rrg.cli.entry`` is the console entry point and
must stay import-light, because the pass-through path (no rrg option) execs rg from it.
"""

__version__ = "0.1.0"
