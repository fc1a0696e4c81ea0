"""Every claim has realistic wrong twins, and the engine passes none of them.

A mutant replaces one step (the last one together with the statement's right-hand side) by a
plausible mistake; see derivations/mutants.py.  Killed means: ``failed`` at exactly the replaced
step, with a counterexample whose two sides differ; or, for a mistake that changes a shape, the
definition refused with a DerivationError naming claim and step.
"""

from __future__ import annotations

import pytest
import sympy as sp

import derivations
from derivations import mutants

# Two cores on the test machine: one worker per core.
JOBS = 2

CLAIMS = [d.id for d in derivations.claims()]


@pytest.fixture(scope="module")
def outcomes(verified) -> dict[tuple[str, str], dict]:
    # the lemmas the mutants cite are unchanged shipped claims, verified once for the whole run
    # (``verified`` starts from ``shipped`` under xdist)
    table = mutants.kill_table(CLAIMS, jobs=JOBS, known=verified.done)
    return {(o["claim"], o["mutant"]): o for o in table}


@pytest.mark.parametrize("claim", CLAIMS)
def test_every_claim_has_enough_mutants(claim):
    assert len(mutants.registry().get(claim, ())) >= mutants.MIN_MUTANTS, (
        f"claim {claim!r} needs at least {mutants.MIN_MUTANTS} mutants in derivations/mutants.py")


def test_no_mutant_names_a_missing_claim():
    assert set(mutants.registry()) <= set(CLAIMS)


PAIRS = [(c, m.name) for c in CLAIMS for m in mutants.registry().get(c, ())]


@pytest.mark.parametrize(("claim", "mutant"), PAIRS, ids=[f"{c}:{m}" for c, m in PAIRS])
def test_mutant_is_killed_at_the_replaced_step(outcomes, claim, mutant):
    o = outcomes[(claim, mutant)]
    if o["verdict"] == "refused":
        assert f"claim {claim!r}, step {o['step']}" in o["detail"]
        assert "shape" in o["detail"]
        return
    assert o["status"] == "failed", o
    assert o["failed_step"] == o["step"], o
    counter = o["counterexample"]
    assert counter["previous"] != counter["current"], counter
    # the point says where the sides differ; sides with nothing to draw differ everywhere
    assert counter["point"] or _draws_nothing(claim, mutant), counter
    # SymPy must not call a wrong step an identity (the numeric route would mask it)
    assert o["symbolic"] != "zero", o


def _draws_nothing(claim: str, name: str) -> bool:
    """Whether the replaced step and the one before have no symbol left once written out (an
    empty sum is 0): then a counterexample has no point to name."""
    mutant = next(m for m in mutants.registry()[claim] if m.name == name)
    wrong = mutant.build(derivations.get(claim)).checked
    sides = (wrong.lhs if mutant.step == 1 else wrong.steps[mutant.step - 2].expr,
             wrong.steps[mutant.step - 1].expr)

    def written_out(e):
        empty = {s: 0 for s in e.atoms(sp.Sum)
                 if all((hi - lo).is_negative for _, lo, hi in s.limits)}
        return e.xreplace(empty)
    return not any(written_out(e).free_symbols for e in sides)


def test_mutant_of_an_unknown_step_is_rejected():
    original = derivations.get("softmax_jacobian")
    wrong = mutants.Mutant("softmax_jacobian", "no such step", 9, lambda: original.rhs)
    with pytest.raises(IndexError, match="steps 1..3"):
        wrong.build(original)


def test_the_unmutated_claim_would_pass_the_same_check():
    # the kill criterion must be able to say no: a 'mutant' that replaces a step by itself is
    # verified like any other and is not killed
    original = derivations.get("softmax_shift_invariance")
    same = mutants.Mutant(original.id, "identity", 2, lambda: original.steps[1].expr)
    assert mutants.run(same, original)["verdict"] == "SURVIVED"


def test_a_mutant_is_checked_at_its_replaced_step_against_the_one_before():
    # the steps before it are the original's (proved with it), those after it cannot move its
    # first failure: the replaced step is checked alone, under the claim's domain and premises
    original = derivations.get("dot_product_mean")
    single = mutants.alone(original, 3)
    assert single.steps == original.steps[2:3] and single.lhs == original.steps[1].expr
    assert single.rhs == original.steps[2].expr and single.domain == original.domain
    assert single.assumptions == original.assumptions
    assert mutants.alone(original, 1).lhs == original.lhs
    # a wrong middle step still fails there, with its counterexample
    mutant = mutants.Mutant(original.id, "sign of step 2", 2, lambda: -original.steps[1].expr)
    o = mutants.run(mutant, original)
    assert o["verdict"] == "killed" and o["failed_step"] == 2, o
