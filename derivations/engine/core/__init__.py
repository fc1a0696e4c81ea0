"""The shared core: what a claim is and what both routes use.

A claim and its premises (:mod:`.claim`), its domain (:mod:`.domain`), definitions and their
printing (:mod:`.definitions`, :mod:`.printing`), E and Var (:mod:`.stochastic`), budgets counted
in SymPy operations (:mod:`.budget`), statuses (:mod:`.status`) and errors (:mod:`.errors`).

May use: SymPy, mpmath and the standard library, and each other.  May not use: either route
(:mod:`derivations.engine.symbolic`, :mod:`derivations.engine.numeric`) nor the judge that runs
them (:mod:`derivations.engine.chain`, :mod:`derivations.engine.premises`) — the core is what the
two routes share, so nothing in it may lean on one of them.
"""
