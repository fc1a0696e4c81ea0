"""A SymPy call that runs past its limit ends as 'numeric', never 'proved', and the run goes on.

The deliberately slow expression is ``Hang(x)``: numerically it is x, but simplifying it never
ends (the hooks simplify() calls spin in pure Python, which the limit's signal interrupts).  So the
claim Hang(x) = x is true at every numeric point and cannot be decided symbolically — on any
machine, with any SymPy cache state.
"""

from __future__ import annotations

import signal
import threading

import sympy as sp

import derivations
from derivations import Derivation, Step, verify
from derivations.core import SYMBOLIC_SECONDS
from derivations.symbolic import symbolic_check

x = sp.Symbol("x", real=True)


class Hang(sp.Function):
    """x at numbers; a simplification that never returns."""

    nargs = 1

    @classmethod
    def eval(cls, arg):
        if arg.is_Number:
            return arg
        return None

    def _spin(self, *args, **kwargs):
        while True:
            pass

    # simplify() calls these on every node (normal() via bottom_up, _eval_simplify on the top)
    normal = _eval_simplify = _spin


SLOW = Derivation("slow_simplification", "Hang(x) = x",
                  sp.Eq(Hang(x), x, evaluate=False), (), (Step(x, "definition of Hang"),))
FAST = Derivation("fast_square", "(x + 1)² = x² + 2x + 1",
                  sp.Eq((x + 1) ** 2, x**2 + 2 * x + 1, evaluate=False), (),
                  (Step(x**2 + 2 * x + 1, "expand"),))


def test_a_hang_in_one_claim_does_not_stop_the_next(monkeypatch):
    monkeypatch.setattr(derivations, "claims", lambda: [SLOW, FAST])
    slow, fast = derivations.verify_all()
    assert slow.id == "slow_simplification" and slow.steps[0].symbolic == "timeout"
    assert slow.status == "numeric" and slow.steps[0].numeric == "agree"
    assert fast.id == "fast_square" and fast.status == "proved"
    assert fast.steps[0].symbolic == "zero"


def test_the_default_limit_stops_the_hang():
    result = symbolic_check(Hang(x), x, seconds=SYMBOLIC_SECONDS)
    assert result == "timeout", result


def test_a_hang_that_is_wrong_still_fails():
    # the time limit decides only proved vs numeric; a counterexample still fails the step
    wrong = Derivation("slow_and_wrong", "Hang(x) = x + 1", sp.Eq(Hang(x), x + 1, evaluate=False),
                       (), (Step(x + 1, "wrong"),))
    result = verify(wrong)
    assert result.status == "failed" and result.steps[0].symbolic == "timeout"


def test_timers_and_handlers_are_restored_after_a_timeout():
    # whichever clock the limit uses (wall or CPU), nothing of it outlives the call
    timers = (signal.ITIMER_REAL, signal.ITIMER_PROF, signal.ITIMER_VIRTUAL)
    signals = (signal.SIGALRM, signal.SIGPROF, signal.SIGVTALRM)
    handlers = [signal.getsignal(s) for s in signals]
    assert symbolic_check(Hang(x), x, seconds=0.05) == "timeout"
    assert all(signal.getitimer(t) == (0.0, 0.0) for t in timers)
    assert [signal.getsignal(s) for s in signals] == handlers


def test_outside_the_main_thread_a_claim_is_never_proved():
    # the limit's signal reaches only the main thread, so there the check is not run at all
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("r", verify(FAST)))
    worker.start()
    worker.join()
    # the numeric route is time-limited too, so it refuses as well: failed, saying why
    assert out["r"].steps[0].symbolic == "timeout" and out["r"].status == "failed"
    assert "main thread" in out["r"].steps[0].counterexample["previous"]
    assert verify(FAST).status == "proved"  # control: in the main thread it is proved
