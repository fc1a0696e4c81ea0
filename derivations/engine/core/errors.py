"""The errors more than one module of the engine raises: the one a malformed claim raises, shared
by the claim types and both routes, and the numeric route's for a side without a value at a point,
found where its concrete form is built (:mod:`derivations.engine.numeric.explicit`) or along the
precision ladder (:mod:`derivations.engine.numeric.pointwise`)."""


class DerivationError(ValueError):
    """A derivation is malformed; the message names the claim, the step and the cause."""


class Undefined(ArithmeticError):
    """A side that no precision of the ladder evaluates to finite numbers at a point."""


class Unseparated(Undefined):
    """Two sides, or one side's own values, that cannot be told apart at the most digits the
    numeric route may use at a point: their scales lie deeper (tanh 10^4 is 1 − 10^-8686), or
    their difference neither shrank nor held still along the ladder.  Neither an agreement nor a
    difference: the point is replaced, like an undefined one, and a step left with such points
    is not proved.  ``limit`` is what stopped it: the digits that would have been needed (or
    were reached) when ``by`` is "digits", the most entries of a concrete matrix the route builds
    when ``by`` is "size" (a 100×100 product has a million terms)."""

    def __init__(self, message: str, limit: int = 0, by: str = "digits"):
        super().__init__(message)
        self.limit, self.by = limit, by


class Pole(Undefined):
    """A side whose concrete form is itself infinite or undefined, whatever the values drawn:
    (n − 3)! at n = 1.  Beside a finite other side it is a difference, not a point to replace."""
