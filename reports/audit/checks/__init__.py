"""The audit's evidence functions, grouped by topic; importing this package registers them all
with :func:`reports.audit.evidence.check`. Their sentences are in ``phrases.toml``."""

from reports.audit.checks import (  # noqa: F401
    architecture,
    attention,
    embedding,
    geometry,
    gradients,
    loss,
    optim,
    outside,
    residual,
    scores,
    sequence,
    softmax,
)
