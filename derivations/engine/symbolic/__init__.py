"""The symbolic route: is a step's difference from the one before zero under the declared
assumptions?  SymPy's ``simplify`` and friends within a budget (:mod:`.check`), and the route's
own methods for what SymPy misses: proofs by cases (:mod:`.cases`), signs (:mod:`.signs`),
antiderivatives and residues for integrals (:mod:`.antiderivatives`, :mod:`.residues`), series
closed by ψ and Γ (:mod:`.series`), the free algebra for square matrices (:mod:`.ring`) and
inverse functions undone (:mod:`.methods`).

May use: SymPy, the shared core (:mod:`derivations.engine.core`) and its own modules.  May not
use: the numeric route (:mod:`derivations.engine.numeric`) — a step is proved only when the two
routes agree, so neither may see how the other reached its answer.  ``tests/test_layout.py``
keeps it so.
"""
