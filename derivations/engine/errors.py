"""The one error a malformed claim raises, shared by the claim types and both routes."""


class DerivationError(ValueError):
    """A derivation is malformed; the message names the claim, the step and the cause."""
