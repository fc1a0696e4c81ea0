"""Budgets that decide the same on every machine: counted in SymPy operations, not in seconds.

A symbolic simplification or a concrete form can run for minutes on an unlucky expression, so the
engine bounds each such computation.  A bound in seconds (wall or CPU) decides differently on a
slower or a busier machine: CPU time per SymPy operation grows with contention for caches and
cores and differs between processors.  So the bound that *decides* is a count of SymPy
operations — calls of SymPy's cached functions (the constructors of Add, Mul, Pow, functions,
…), read from the counters of SymPy's own cache, which cost nothing to keep.  The count of a
computation depends only on what is computed, provided it starts from the same cache state:
:func:`fresh_start` empties SymPy's cache (and the engine's own memos) before each claim, and
:func:`normalise_cache` gives every cached function the same size whatever imported SymPy first.

The budget is checked asynchronously (a ``SIGPROF`` timer reads the counter every
``CHECK_SECONDS`` of CPU) and once more when the computation ends, so the outcome is "over budget"
exactly when the count passes the limit, whenever the timer happens to fire.  The exception is a
``BaseException``: SymPy's own ``except Exception`` blocks cannot swallow it and take another path.

SymPy's factoring of a polynomial works on lists of coefficients, outside its cached functions:
trigsimp once spent minutes factoring a polynomial of degree 800 in e (from coth(t + 200)).  So
each univariate factorisation over the integers (Zassenhaus's algorithm, which every factoring
of a polynomial over ZZ, QQ or ZZ[i] reaches) is charged ⌈n³/64⌉ operations for its degree n, a
count of its work mod p, before it starts: past a budget it never starts.

A computation that does little SymPy work (a spin in pure Python, a long mpmath evaluation) is
stopped by a CPU-time backstop, far above anything a budget allows on a slow machine; the outcome
then says so, since only it could depend on the machine.
"""

from __future__ import annotations

import signal
import threading
import time
from functools import lru_cache
from typing import NamedTuple

from sympy.core import cache as sympy_cache
from sympy.core import random as sympy_random
from sympy.polys import factortools

CACHE_SIZE = 20000  # entries per cached function: SymPy's default (1000) thrashes on our forms
SYMPY_SEED = 0  # SymPy's own generators, seeded again before every claim
CHECK_SECONDS = 0.02  # CPU seconds between two reads of the counter
BACKSTOP_SECONDS = 300.0  # CPU seconds: only a computation that does no SymPy work gets here


class OverBudget(BaseException):  # noqa: N818 - an outcome, like StopIteration, not an error
    """A computation used more than its budget (``kind`` "operations") or ran into the CPU-time
    backstop (``kind`` "backstop").  ``str()`` says which, in words a report can print."""

    def __init__(self, what: str, kind: str, limit: float, used: float):
        self.what, self.kind, self.limit, self.used = what, kind, limit, used
        if kind == "operations":
            text = f"{what} timed out after {limit:,} SymPy operations"
        elif kind == "work":
            text = (f"{what} stopped after {limit:,} units of numeric work (its operations, "
                    f"weighted by their digits)")
        elif kind == "thread":
            text = f"{what} not run: budgets need the main thread (they use signals)"
        else:
            text = (f"{what} stopped by the CPU backstop after {limit:g} s with "
                    f"{used:,} SymPy operations, under its budget (only this outcome can "
                    f"depend on the machine)")
        super().__init__(text)


def _cells():
    """(wrapper, cfunc cell, func cell) of every function SymPy caches."""
    out = []
    for wrapper in sympy_cache.CACHE:
        code = getattr(wrapper, "__code__", None)
        names = getattr(code, "co_freevars", ())
        if "cfunc" not in names or "func" not in names:
            raise RuntimeError(
                f"SymPy's cache has an entry of an unknown shape ({wrapper!r}); the engine counts "
                f"SymPy operations through it and needs SymPy's lru_cache-based cache (SymPy "
                f">= 1.13 with SYMPY_USE_CACHE unset or 'yes')")
        closure = wrapper.__closure__
        out.append((wrapper, closure[names.index("cfunc")], closure[names.index("func")]))
    if not out:
        raise RuntimeError("SymPy's cache is off (SYMPY_USE_CACHE=no); the engine counts SymPy "
                           "operations through it: unset SYMPY_USE_CACHE")
    return out


_NORMALISED: set[int] = set()
_SEEN = [0]  # len(sympy_cache.CACHE) when it was last normalised
_INFO: list = []  # cache_info of every normalised cache, read by operations()
_RETIRED = [0]  # operations counted by caches since cleared (clearing resets their counters)
_CHARGED = [0]  # operations charged for work outside SymPy's cached functions (charge())


def _retiring_clear(cached):
    def cache_clear():
        info = cached.cache_info()
        _RETIRED[0] += info.hits + info.misses
        cached.cache_clear()
    return cache_clear


def normalise_cache() -> None:
    """Give every cached SymPy function an empty cache of ``CACHE_SIZE`` entries (once per
    function), so that a count does not depend on whether SymPy was imported before the engine
    set SYMPY_CACHE_SIZE; clearing it (SymPy does, e.g. when ``evaluate(False)`` is entered)
    keeps its count.  Functions SymPy caches later (on first import of a submodule) are
    normalised at the next call."""
    if len(sympy_cache.CACHE) == _SEEN[0]:  # SymPy's list of cached functions only grows
        return
    for wrapper, cfunc, func in _cells():
        if id(wrapper) in _NORMALISED:
            continue
        fresh = lru_cache(CACHE_SIZE, typed=True)(func.cell_contents)
        cfunc.cell_contents = fresh
        wrapper.cache_info, wrapper.cache_clear = fresh.cache_info, _retiring_clear(fresh)
        _NORMALISED.add(id(wrapper))
        _INFO.append(fresh.cache_info)
    _SEEN[0] = len(sympy_cache.CACHE)


_FORGET: list = []  # the engine's own memos, emptied with SymPy's cache


def forget_with_claims(clear) -> None:
    """Register ``clear()`` (a memo's clear method) to run at every :func:`fresh_start`."""
    _FORGET.append(clear)


class ClaimMemo(dict):
    """A memo of the engine's kept for one claim: emptied at every :func:`fresh_start`, so that
    what a claim counts is its own, and when it passes ``BOUND`` entries, for callers that never
    start afresh."""

    BOUND = 4096

    def __init__(self) -> None:
        super().__init__()
        forget_with_claims(self.clear)

    def keep(self, key, value):
        """``self[key] = value``, within the bound; returns ``value``."""
        if len(self) > self.BOUND:
            self.clear()
        self[key] = value
        return value


_WARM: list[bool] = []


def _warm_up() -> None:
    """Once per process: the first simplification, summation and mpmath evaluation build SymPy's
    module-level tables (patterns, constants) with cached calls, which would otherwise be counted
    against whichever claim comes first — three times its own count for a small claim."""
    import sympy as sp

    x, y = sp.symbols("x y", real=True)
    k, n = sp.symbols("k n", integer=True, positive=True)
    z = sp.IndexedBase("z", real=True)
    sp.simplify(sp.exp(x) / (1 + sp.exp(x)) - 1 / (1 + sp.exp(-x)) + sp.sqrt(x**2) * y)
    sp.Sum(z[k] * sp.KroneckerDelta(k, n), (k, 1, n)).doit()
    sp.Matrix(2, 2, [x, y, y, x]).inv().applyfunc(sp.cancel)
    sp.lambdify((x, y), sp.erf(x) * sp.log(y), modules="mpmath")(0.5, 2.0)
    sp.N(sp.pi * x, 30, subs={x: 1})
    _WARM.append(True)


def fresh_start() -> None:
    """Empty SymPy's cache and the engine's memos, and seed SymPy's generators: what a claim's
    checks count, and the path SymPy takes, then depend on that claim alone, not on the claims
    checked before it in this process (up to SymPy objects that remember their own properties,
    and Python's hash seed, which can change the order SymPy visits sets in).

    SymPy's assumption system asks the facts that could decide a query in an order shuffled by
    a generator seeded from the operating system at import, so without the seed the same claim
    took a different path, and up to a quarter more or fewer operations, in every process."""
    if not _WARM:
        _warm_up()
    normalise_cache()
    sympy_cache.clear_cache()
    sympy_random.seed(SYMPY_SEED)
    for clear in _FORGET:
        clear()
    _PEAK.clear()


def operations() -> int:
    """SymPy operations so far: calls of cached SymPy functions, hits and misses."""
    total = _RETIRED[0] + _CHARGED[0]
    for info in _INFO:
        hits, misses, _, _ = info()
        total += hits + misses
    for wrapper in sympy_cache.CACHE[_SEEN[0]:]:  # made since the last normalisation
        info = wrapper.cache_info()
        total += info.hits + info.misses
    return total


class Use(NamedTuple):
    """The most one kind of computation used: SymPy operations of the computation nearest its
    limit, that limit, and the most CPU seconds any of them took."""

    ops: int
    limit: int
    cpu: float

    @property
    def headroom(self) -> float:
        """How many times the use fits in the limit."""
        return self.limit / max(self.ops, 1)


_PEAK: dict[str, Use] = {}  # kind of budget -> its Use since fresh_start


def record(kind: str, ops: int, limit: int, cpu: float) -> None:
    old = _PEAK.get(kind)
    if old is None or ops / limit > old.ops / old.limit:
        _PEAK[kind] = Use(ops, limit, max(cpu, old.cpu if old else 0.0))
    else:
        _PEAK[kind] = old._replace(cpu=max(cpu, old.cpu))


def peaks() -> dict[str, Use]:
    """For each kind of budget, what its computations used since :func:`fresh_start`."""
    return dict(_PEAK)


class budget:  # noqa: N801 - used as a context manager, like a function
    """``with budget(ops, what, kind=...) as meter:`` runs the body within ``ops`` SymPy
    operations (and ``backstop`` CPU seconds), or raises :class:`OverBudget`.  ``meter.ops`` and
    ``meter.cpu`` hold what the body used once the block ends.

    The outcome is decided when the block ends, from the count alone: over budget exactly when
    the body's operations passed ``ops``, whatever else it raised after passing them.  The timer
    only stops a body early that would pass them anyway.  Signals reach only the main thread, so
    elsewhere a budget refuses to start (kind "thread") rather than run unbounded.  Budgets nest:
    the innermost one is enforced while it runs; an enclosing one counts its work too and decides
    when it ends."""

    def __init__(self, ops: int, what: str, kind: str = "other", backstop: float | None = None):
        self.limit, self.what, self.kind = ops, what, kind
        self.backstop = BACKSTOP_SECONDS if backstop is None else backstop
        self.ops, self.cpu = 0, 0.0
        self.closing = False

    def __enter__(self) -> budget:
        if threading.current_thread() is not threading.main_thread():
            raise OverBudget(self.what, "thread", 0, 0)
        normalise_cache()
        self._start_ops, self._start_cpu = operations(), time.process_time()
        if not _ACTIVE:
            _SAVED.append(signal.signal(signal.SIGPROF, _tick))
            signal.setitimer(signal.ITIMER_PROF, CHECK_SECONDS, CHECK_SECONDS)
        _ACTIVE.append(self)
        return self

    def read(self) -> tuple[int, float]:
        return operations() - self._start_ops, time.process_time() - self._start_cpu

    def check(self) -> None:
        """Raise if the body is over budget now (from the timer)."""
        used, cpu = self.read()
        if used > self.limit:
            raise OverBudget(self.what, "operations", self.limit, used)
        if cpu > self.backstop:
            raise OverBudget(self.what, "backstop", self.backstop, used)

    def __exit__(self, exc_type, exc, tb) -> bool:
        self.closing = True
        _ACTIVE.remove(self)
        if not _ACTIVE:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, _SAVED.pop())
        self.ops, self.cpu = self.read()
        record(self.kind, self.ops, self.limit, self.cpu)
        if self.ops > self.limit:
            raise OverBudget(self.what, "operations", self.limit, self.ops) from (
                None if isinstance(exc, OverBudget) else exc)
        return False  # any other exception, a backstop included, goes on


_ACTIVE: list[budget] = []
_SAVED: list = []  # the SIGPROF handler to restore when the outermost budget ends


def charge(ops: int) -> None:
    """Count ``ops`` operations of work done outside SymPy's cached functions, before doing it:
    the innermost running budget is checked at once, so work that would pass it never starts."""
    _CHARGED[0] += ops
    if _ACTIVE and not _ACTIVE[-1].closing:
        _ACTIVE[-1].check()


def factoring_cost(degree: int) -> int:
    """Operations charged for factoring a square-free polynomial of this degree over ZZ."""
    return -(-degree**3 // 64)


_ZASSENHAUS = factortools.dup_zz_zassenhaus


def _charged_zassenhaus(f, K):
    charge(factoring_cost(len(f) - 1))
    return _ZASSENHAUS(f, K)


# factortools calls it through its module's globals (dup_zz_factor, dup_zz_factor_sqf)
factortools.dup_zz_zassenhaus = _charged_zassenhaus


def innermost() -> budget | None:
    """The innermost running budget, or None outside every budget."""
    return _ACTIVE[-1] if _ACTIVE else None


def _tick(signum, frame) -> None:
    """The timer's handler: check the innermost budget, unless the signal arrived while a budget
    was being entered or left (its own code decides then, from the count)."""
    if not _ACTIVE or (frame is not None and frame.f_code in _OWN_CODE):
        return
    top = _ACTIVE[-1]
    if not top.closing:
        top.check()


_OWN_CODE = {budget.__enter__.__code__, budget.__exit__.__code__, budget.read.__code__,
             budget.check.__code__, operations.__code__, normalise_cache.__code__,
             OverBudget.__init__.__code__, charge.__code__}
