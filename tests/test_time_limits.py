"""A SymPy call that runs past its limit ends as 'numeric', never 'proved', and the run goes on.

The slow claim is (a + b + c + d + 1)¹² = its expansion: true (the numeric route agrees at every
point) but simplify() on the difference of 1820 terms runs far past the engine's limit.
"""

from __future__ import annotations

import signal
import threading

import sympy as sp

import derivations
from derivations import Derivation, Step, verify
from derivations.core import SYMBOLIC_SECONDS
from derivations.symbolic import symbolic_check

a, b, c, d = sp.symbols("a b c d", real=True)
x = sp.Symbol("x", real=True)
POWER = 12

SLOW = Derivation("slow_expansion", "a 12th power equals its expansion",
                  sp.Eq((a + b + c + d + 1) ** POWER, sp.expand((a + b + c + d + 1) ** POWER),
                        evaluate=False), (),
                  (Step(sp.expand((a + b + c + d + 1) ** POWER), "binomial expansion"),))
FAST = Derivation("fast_square", "(x + 1)² = x² + 2x + 1",
                  sp.Eq((x + 1) ** 2, x**2 + 2 * x + 1, evaluate=False), (),
                  (Step(x**2 + 2 * x + 1, "expand"),))


def test_a_hang_in_one_claim_does_not_stop_the_next(monkeypatch):
    monkeypatch.setattr(derivations, "claims", lambda: [SLOW, FAST])
    slow, fast = derivations.verify_all()
    assert slow.id == "slow_expansion" and slow.steps[0].symbolic == "timeout"
    assert slow.status == "numeric" and slow.steps[0].numeric == "agree"
    assert fast.id == "fast_square" and fast.status == "proved"
    assert fast.steps[0].symbolic == "zero"


def test_the_limit_is_the_engines_default():
    # no shortened limit: the same call at SYMBOLIC_SECONDS times out
    assert symbolic_check(SLOW.lhs, SLOW.rhs, seconds=SYMBOLIC_SECONDS) == "timeout"


def test_the_timer_and_handler_are_restored_after_a_timeout():
    marker = signal.getsignal(signal.SIGALRM)
    assert symbolic_check(SLOW.lhs, SLOW.rhs, seconds=0.05) == "timeout"
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is marker


def test_outside_the_main_thread_a_claim_is_never_proved():
    # SIGALRM reaches only the main thread, so there the check is not run at all
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("r", verify(FAST)))
    worker.start()
    worker.join()
    assert out["r"].steps[0].symbolic == "timeout" and out["r"].status == "numeric"
    assert verify(FAST).status == "proved"  # control: in the main thread it is proved
