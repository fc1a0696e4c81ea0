"""Cross-check every derived result against the NumPy Transformer on its live tensors.

``python -m numeric.crosscheck [--json]`` runs :func:`run_all`: for each claim of ``derivations``
that has a numeric meaning for the model, the derived formula — lambdified from the derivation
module's exported SymPy object, never restated — is evaluated on tensors of a real forward and
backward pass and compared with (a) what the model's backward computed and (b) float64 central
finite differences; the attention-scaling results are compared with Monte Carlo estimates.

Each comparison is a :class:`Record` of fields — claim, id, kind (:class:`Kind`: identity, finite
differences, Monte Carlo, closed form against the optimiser's recursion), what is compared (a key
whose words are the report's), the model's named tensor it is made at, the settings it states, max
abs, max rel, tolerance, which of the two errors decides, passed.  Exit status: 0 all pass,
1 any fails, 2 bad usage.  :func:`plot_data` gives the curves the reports draw.  Claims without a
numeric meaning for the model are listed in ``NOT_CROSS_CHECKED``.
"""

from __future__ import annotations

import json
import sys

from numeric.crosscheck.core import Kind, Record

__all__ = ["NOT_CROSS_CHECKED", "Kind", "Record", "main", "plot_data", "run_all"]

# Claims with nothing of the model to compare with, and why.
NOT_CROSS_CHECKED: dict[str, str] = {}


# The producers below import their modules when called: those import the claims (SymPy, every
# claim built), which a reader of the records' types (the report's view) does not need.


def fd_logits(live):
    """FD gradient of the mean loss by the logits, every entry."""
    from numeric.crosscheck.live import loss_grad_at

    logits = live.cache["logits"]
    _, grad = loss_grad_at(live, "logits", entries=logits.size)
    return grad.reshape(logits.shape)


def run_all(curves: dict | None = None) -> list[Record]:
    """Every cross-check, in a fixed order; deterministic (seeded), float64.  ``curves``, if
    given, receives the attention-scaling curves (``plot_data(curves)`` then reuses them)."""
    from numeric.crosscheck import layers, stats
    from numeric.crosscheck import softmax as soft
    from numeric.crosscheck.live import run as run_live
    from numeric.threads import blas_threads

    with blas_threads(1):  # many tiny products: a second BLAS thread only waits
        live = run_live()
        records = []
        records += stats.scaling_records(live, curves)
        records += soft.softmax_records(live)
        records += soft.attention_records(live)
        records += soft.cross_entropy_records(live, fd_logits(live))
        records += layers.linear_records(live)
        records += layers.residual_records(live)
        identity = layers.identity_live()
        records += layers.mlp_records(identity)
        records += layers.adam_records(live)
        records += training_records(live, identity)
    return records


def training_records(live, identity) -> list[Record]:
    """The training step's ops: LayerNorm, GELU and the identity MLP, positions (a RoPE model
    too), the embedding, the mask, multi-head, ignore_index (a model with ignored targets),
    AdamW and clipping, the log-sum-exp Hessian."""
    from numeric.crosscheck import training_layers as tl
    from numeric.crosscheck import training_step as ts
    from numeric.crosscheck.live import check_config
    from numeric.crosscheck.live import run as run_live

    rope = run_live(check_config(pos="rope"))
    ignoring = run_live(check_config(ignore_index=-100))
    return (tl.layernorm_records(live) + tl.gelu_records(live) + tl.identity_records(identity)
            + tl.sinusoidal_records(live) + tl.rope_records(rope) + tl.embedding_records(live)
            + ts.mask_records(live) + ts.multihead_records(live)
            + ts.ignore_index_records(ignoring) + ts.adamw_records(live)
            + ts.hessian_records(live))


def coverage(records: list[Record]) -> dict[str, list[str]]:
    """Claim ids of ``derivations`` with and without a cross-check record."""
    import derivations

    checked = {r.claim for r in records}
    ids = [d.id for d in derivations.claims()]
    return {"checked": [i for i in ids if i in checked],
            "unchecked": [i for i in ids if i not in checked]}


def plot_data(curves: dict | None = None) -> dict:
    """Curves for the reports; JSON-able floats only.  ``curves``: those ``run_all(curves)``
    filled, instead of sampling the attention scaling again."""
    from numeric.crosscheck import stats
    from numeric.crosscheck.live import run as run_live
    from numeric.threads import blas_threads

    with blas_threads(1):
        if not curves:
            curves = {}
            stats.scaling_records(run_live(), curves)
        return {"variance_vs_dk": curves, "saturation": stats.saturation(),
                "depth_gradnorm": stats.depth_gradnorm()}


def _fmt(x: float) -> str:
    return f"{x:9.2e}"


def main(argv: list[str] | None = None) -> int:
    from derivations.cli import Parser

    parser = Parser(prog="python -m numeric.crosscheck",
                    description="cross-check the derivations on the live model")
    parser.add_argument("--json", action="store_true", help='print {"records": [...]}')
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # a usage error (one line, from Parser) or --help
        return 0 if exc.code == 0 else 2
    records = run_all()
    if args.json:
        print(json.dumps({"records": [r.to_dict() for r in records]}, indent=1))
    else:
        print(f"{'claim':34s} {'id':38s} {'kind':17s} {'max abs':>9s} {'max rel':>9s} "
              f"{'tol':>9s} pass  tensor")
        for r in records:
            print(f"{r.claim:34s} {r.id:38s} {r.kind.value:17s} {_fmt(r.max_abs)} "
                  f"{_fmt(r.max_rel)} {_fmt(r.tolerance)} {'ok  ' if r.passed else 'FAIL'}  "
                  f"{r.tensor or '-'}")
        failed = sum(not r.passed for r in records)
        cov = coverage(records)
        missing = ", ".join(cov["unchecked"]) or "none"
        print(f"{len(records) - failed}/{len(records)} passed; claims checked "
              f"{len(cov['checked'])}, without a cross-check: {missing}")
    return 0 if all(r.passed for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
