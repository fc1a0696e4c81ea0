"""The errors more than one module of the engine raises: the one a malformed claim raises, shared
by the claim types and both routes, and the numeric route's for a side without a value at a point,
found where its concrete form is built (:mod:`derivations.engine.numeric.explicit`) or along the
precision ladder (:mod:`derivations.engine.numeric.pointwise`)."""


class DerivationError(ValueError):
    """A derivation is malformed; the message names the claim, the step and the cause."""


class Undefined(ArithmeticError):
    """A side that no precision of the ladder evaluates to finite numbers at a point."""


class Pole(Undefined):
    """A side whose concrete form is itself infinite or undefined, whatever the values drawn:
    (n − 3)! at n = 1.  Beside a finite other side it is a difference, not a point to replace."""
