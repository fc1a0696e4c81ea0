"""The numeric route: does a step equal the one before at sampled points, at high precision?
Points are drawn by :mod:`.sampling`; each side is made concrete (sizes replaced by numbers,
sums written out, :mod:`.explicit`, :mod:`.finite`) and compiled to mpmath (:mod:`.mpnum`, its
printer :mod:`.mpprint`), which closes integrals, series, products and limits by numbers
(:mod:`.mpseries`, :mod:`.mplimits`, :mod:`.periods`) and reads floors and signs through rounding
(:mod:`.mpsnap`); each evaluation records what its values hold below their leading digits and
counts its work (:mod:`.scales`); :mod:`.pointwise` compares only at precisions that could show a
difference, :mod:`.probe` and :mod:`.jumps` look for the points where a false step shows.

May use: SymPy to build and differentiate explicit expressions, mpmath, the shared core
(:mod:`derivations.engine.core`) and its own modules.  May not use: the symbolic route
(:mod:`derivations.engine.symbolic`), nor, while it runs, SymPy's own algorithms for the claim's
operators — ``integrate``, ``limit``, ``summation``, ``simplify``, ``solve``
(:mod:`derivations.engine.independence` refuses them at run time).  ``tests/test_layout.py``
keeps the imports so.
"""
