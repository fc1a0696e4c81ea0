"""Time limits for SymPy calls, which can run for minutes on an unlucky expression."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


class SymbolicTimeout(Exception):
    """A symbolic computation ran past its time limit."""


@contextmanager
def time_limit(seconds: float, what: str = "symbolic check"):
    """Raise SymbolicTimeout in the body after ``seconds`` of this process's CPU time.

    CPU time rather than wall time, so that a busy machine does not turn a proof into a timeout.
    SymPy is pure Python and CPU-bound, so a SIGPROF interrupts it between bytecodes.  Signals reach
    only the main thread; elsewhere the limit is enforced by refusing to start rather than by
    running unbounded.
    """
    if threading.current_thread() is not threading.main_thread():
        raise SymbolicTimeout(f"time limits need the main thread; {what} not run")

    def _raise(signum, frame):
        raise SymbolicTimeout(f"{what} exceeded {seconds} s")

    previous = signal.signal(signal.SIGPROF, _raise)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
