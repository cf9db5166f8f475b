"""The verbs' implementations, one module per verb; their functions are re-exported by
:mod:`ragstat.api` (a module here never shares its package with a function of its name)."""
