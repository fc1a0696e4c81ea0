"""Chains of trust: a claim citing a lemma that is not proved says which and why, checks the
lemma's rewrite with numbers where it cites it, and is never better than the lemma or its own
steps allow."""

from __future__ import annotations

import sympy as sp

from derivations import Derivation, Domain, Step, lemma, verify
from derivations.claimfiles import explain

x = sp.Symbol("x", real=True)
y = sp.Symbol("y", positive=True)


def claim(cid, lhs, rhs, domain=None, assumptions=(), steps=None) -> Derivation:
    rhs = sp.sympify(rhs)
    return Derivation(cid, cid, sp.Eq(lhs, rhs, evaluate=False), tuple(assumptions),
                      steps or (Step(rhs, "claimed"),), domain or Domain())


FLOOR_UNIT = claim("floor_unit", sp.floor(x), 0, Domain(ranges={x: (0, 1)}))


def test_a_lemma_false_where_it_is_cited_fails_the_citing_claim_naming_it():
    # ⌊x⌋ = 0 on (0, 1), cited on (0, 5): the lemma's rewrite is false where it is used
    citing = claim("floor_cited", sp.floor(x) + x, x, Domain(ranges={x: (0, 5)}),
                   (lemma(FLOOR_UNIT),), (Step(x, "the lemma", ("floor_unit",)),))
    result = verify(citing)
    assert result.status == "failed"
    assert result.premises["floor_unit"] != "proved"
    assert result.failed_premise == "floor_unit"
    lines = explain(result)
    assert any("premise 'floor_unit' failed" in line for line in lines)


TANH_EXACT = claim("tanh_exact", sp.tanh(x), 1 - 2 / (sp.exp(2 * x) + 1))
# true, but neither simplify nor the own methods close it: only its numbers agree
# true, and numeric: no method of the symbolic route shows atan y + acot y = π/2 (atan y +
# atan(1/y) = π/2 on y > 0 is proved, by the principal branches on a known sign)
ATAN = claim("atan_pair", sp.atan(y) + sp.acot(y), sp.pi / 2, Domain(ranges={y: (1, 2)}))


def test_a_numeric_lemma_is_checked_where_cited_and_the_citing_claim_says_why():
    citing = claim("cites_numeric", sp.exp(y) * (sp.atan(y) + sp.acot(y)),
                   sp.pi * sp.exp(y) / 2, Domain(ranges={y: (1, 2)}), (lemma(ATAN),),
                   (Step(sp.pi * sp.exp(y) / 2, "the lemma", ("atan_pair",)),))
    result = verify(citing)
    assert result.premises == {"atan_pair": "numeric"}
    assert result.status == "numeric"
    check = next(p for p in result.premise_checks if p.name == "atan_pair")
    assert check.status == "lemma" and "where this claim cites it: checked" in check.detail
    assert any("that claim is numeric: step 1 (claimed) is numeric" in line
               for line in explain(result))


def test_a_proved_lemma_is_taken_as_proved_and_not_checked_again():
    citing = claim("cites_exact", 2 * sp.tanh(x), 2 - 4 / (sp.exp(2 * x) + 1), None,
                   (lemma(TANH_EXACT),),
                   (Step(2 - 4 / (sp.exp(2 * x) + 1), "twice the lemma", ("tanh_exact",)),))
    result = verify(citing)
    assert result.status == "proved"
    check = next(p for p in result.premise_checks if p.name == "tanh_exact")
    assert check.status == "lemma" and "verified on its own" in check.detail
    assert explain(result) == []


def test_a_citing_claim_with_a_wrong_step_fails_whatever_its_lemma():
    citing = claim("cites_wrong", 2 * sp.tanh(x), 3 - 4 / (sp.exp(2 * x) + 1), None,
                   (lemma(TANH_EXACT),),
                   (Step(3 - 4 / (sp.exp(2 * x) + 1), "twice the lemma", ("tanh_exact",)),))
    assert verify(citing).status == "failed"
