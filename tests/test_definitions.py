"""Definitions: a claim is written and printed in its notation and checked with every definition
unfolded; a definition that could not be a substitution is refused, naming it.

What is printed must unfold to exactly what was checked: tested on every shipped claim and
example, structurally, and shown to fail when it does not hold.
"""

from __future__ import annotations

import runpy
from dataclasses import replace
from pathlib import Path

import pytest
import sympy as sp

import derivations
from derivations import Definition, Derivation, DerivationError, Domain, Notation, Step, verify
from derivations.engine.core.definitions import ordered, unfold
from derivations.engine.core.printing import latex, legend

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))

d = sp.Symbol("d", integer=True, positive=True)
i, j, k = sp.symbols("i j k", integer=True, positive=True)
x = sp.IndexedBase("x", real=True)
eps = sp.Symbol("varepsilon", positive=True)
mu = sp.Symbol("mu", real=True)
ROW = Notation("row", (d, x, eps))
MU = ROW.define("μ", mu, sp.Sum(x[k], (k, 1, d)) / d, text="the mean")
xh = sp.IndexedBase("xhat", real=True)
XH = ROW.define("x̂", xh, x[i] - mu, params=(i,), text="the centred entry")


ZERO, ONE = sp.Integer(0), sp.Integer(1)


def _centred(rhs=ZERO) -> Derivation:
    """Σ_k x̂_k = rhs, by the definitions of x̂ and μ."""
    return Derivation(
        "centred", "the centred entries sum to zero",
        sp.Eq(sp.Sum(xh[k], (k, 1, d)), rhs, evaluate=False), (),
        (Step(sp.Sum(x[k], (k, 1, d)) - d * mu, "the definition of x̂; linearity", ("x̂",)),
         Step(rhs, "the definition of μ", ("μ",))),
        Domain(dims=(d,)), (XH,))


# --- checked unfolded, printed as written -------------------------------------------------------

def test_a_claim_is_checked_with_its_definitions_unfolded():
    claim = _centred()
    assert claim.definitions_used == (MU, XH)  # x̂ brings μ, which it uses
    assert claim.checked.lhs == sp.Sum(x[k] - sp.Sum(x[k], (k, 1, d)) / d, (k, 1, d))
    assert claim.checked.steps[0].by == ()  # a cited definition is no premise
    assert verify(claim).status == "proved"


def test_a_definition_is_no_premise_a_false_claim_still_fails():
    wrong = _centred(ONE)
    result = verify(wrong)
    assert result.status == "failed" and result.failed_step == 2
    # the counterexample is drawn for x, never for μ: μ has no values of its own
    assert "mu" not in result.steps[1].counterexample["point"]


def test_the_report_prints_the_claim_as_written_with_its_legend():
    result = verify(_centred())
    data = result.to_dict()
    assert data["statement"] == r"\sum_{k=1}^{d} {\hat{x}}_{k} = 0"
    assert [x["latex"] for x in data["definitions"]] == [
        r"\mu := \frac{1}{d} \sum_{k=1}^{d} {x}_{k}", r"{\hat{x}}_{i} := {x}_{i} - \mu"]
    assert data["steps"][0]["latex"] == r"\sum_{k=1}^{d} {x}_{k} - d \mu"
    assert data["steps"][0]["by"] == ["x̂"]


def _faithless(claim) -> list[str]:
    """Where what is printed (the claim as written) does not unfold to what was checked."""
    defined = claim.definitions_used
    pairs = [("left-hand side", claim.lhs, claim.checked.lhs),
             ("right-hand side", claim.rhs, claim.checked.rhs)]
    pairs += [(f"step {n}", s.expr, c.expr)
              for n, (s, c) in enumerate(zip(claim.steps, claim.checked.steps, strict=True), 1)]
    return [f"{claim.id} {where}" for where, shown, checked in pairs
            if unfold(shown, defined) != checked]


def _claims_and_examples():
    out = list(derivations.claims())
    for path in EXAMPLES:
        out += list(runpy.run_path(str(path))["CLAIMS"])
    return out


def test_what_is_printed_unfolds_to_exactly_what_is_checked():
    claims = _claims_and_examples()
    assert len(claims) >= 84 and any(c.definitions_used for c in claims)
    assert [where for c in claims for where in _faithless(c)] == []
    # a printed formula is the printer's TeX of exactly that expression
    for c in claims:
        result_latex = latex(c.statement, c.definitions_used)
        assert result_latex == derivations.latex(c.statement, c.definitions_used)


def test_the_faithfulness_check_fails_when_the_checked_claim_is_another():
    claim = _centred()
    checked = claim.checked
    # equal in value, not what the printed claim unfolds to: the bound index renamed
    renamed = sp.Sum(checked.lhs.function.xreplace({k: i}), (i, 1, d))
    other = replace(checked, statement=sp.Eq(renamed, checked.rhs, evaluate=False))
    object.__setattr__(claim, "_checked", other)
    assert _faithless(claim) == ["centred left-hand side"]


# --- refused: circular, shadowing, undeclared, a changed shape ----------------------------------

a, b = sp.symbols("a b", real=True)


def test_a_circular_definition_is_refused_naming_the_cycle():
    with pytest.raises(DerivationError, match=r"definition 'a': circular, a is defined in "
                                              r"terms of itself"):
        Definition("a", a, a + 1)
    loop = (Definition("a", a, b + 1), Definition("b", b, a - 1))
    with pytest.raises(DerivationError, match=r"claim 'loop': the definitions are circular: "
                                              r"a → b → a"):
        Derivation("loop", "a = a", sp.Eq(a, a, evaluate=False), (), (Step(a, "the same"),),
                   definitions=loop)


def test_a_notation_cannot_be_circular_a_later_symbol_is_undeclared():
    home = Notation("h", (d,))
    with pytest.raises(DerivationError, match=r"h: definition 'a': its body refers to b, which "
                                              r"is not declared"):
        home.define("a", a, b + d)


def test_a_definition_that_shadows_a_declared_symbol_is_refused():
    home = Notation("h", (d, a))
    with pytest.raises(DerivationError, match="a shadows the variable a of h"):
        home.define("a", a, d + 1)
    with pytest.raises(DerivationError, match="the name is defined already"):
        ROW.define("μ", sp.Symbol("nu"), d)
    with pytest.raises(DerivationError, match="mu is defined already, as 'μ'"):
        ROW.define("mean again", mu, d)
    for domain in (Domain(dims=(d,), ranges={mu: (0.1, 1.0)}),
                   Domain(dims=(d,), constants=(mu,))):
        with pytest.raises(DerivationError, match="definition 'μ' shadows mu, which the "
                                                  "claim's Domain declares"):
            replace(_centred(), domain=domain)


def test_a_defined_symbol_may_not_be_bound_or_named_twice():
    with pytest.raises(DerivationError, match="definition 'μ' is shadowed by the bound variable"):
        Derivation("bound", "∂μ", sp.Eq(sp.Derivative(mu**2, mu), 2 * mu, evaluate=False), (),
                   (Step(2 * mu, "power rule"),), Domain(dims=(d,)), (MU,))
    other_mu = sp.Symbol("mu", positive=True)
    with pytest.raises(DerivationError, match="two different objects are named 'mu'"):
        Derivation("twice", "μ", sp.Eq(other_mu + mu, 2 * mu, evaluate=False), (),
                   (Step(2 * mu, "add"),), Domain(dims=(d,)), (MU,))
    z = sp.Symbol("z", real=True)
    phi, plain = sp.Function("phi", real=True), sp.Function("phi")
    defined = Definition("φ", phi, sp.exp(-z**2), params=(z,))
    with pytest.raises(DerivationError, match="definition 'φ' defines .* but the claim also uses "
                                              ".* another object named phi"):
        Derivation("phis", "φ", sp.Eq(plain(z), phi(z), evaluate=False), (),
                   (Step(phi(z), "the same"),), Domain(), (defined,))


def test_a_definition_referring_to_an_undeclared_symbol_is_refused():
    y = sp.IndexedBase("y", real=True)
    # made on its own, its body may use the claim's symbols only
    stray = Definition("m", mu, sp.Sum(y[k], (k, 1, d)) / d)
    with pytest.raises(DerivationError, match=r"definition 'm' refers to y, which is not "
                                              r"declared: neither its parameter \(none\)"):
        Derivation("stray", "μ", sp.Eq(mu, mu, evaluate=False), (), (Step(mu, "the same"),),
                   Domain(dims=(d,)), (stray,))
    # an index that is not its parameter: x̂_i := x_j − μ would depend on the claim's j
    with pytest.raises(DerivationError, match=r"its body refers to j, which is not declared"):
        Notation("h", (d, x)).define("x̂", xh, x[j], params=(i,))


def test_an_undeclared_symbol_is_named_once_with_what_to_do():
    """The claim's symbols are each named once (an IndexedBase and its label are one name), and
    the message says how to declare the missing one."""
    n = sp.Symbol("n", integer=True, positive=True)
    p, s = sp.IndexedBase("p", positive=True), sp.IndexedBase("s")
    temperature = sp.Symbol("T", positive=True)
    soft = Definition("s", s, sp.exp(p[i] / temperature) / sp.Sum(sp.exp(p[k] / temperature),
                                                                   (k, 1, n)), params=(i,))
    lhs = sp.Sum(p[i] * sp.log(s[i]), (i, 1, n))
    with pytest.raises(DerivationError) as caught:
        Derivation("kl", "kl", sp.Eq(lhs, lhs, evaluate=False), (),
                   (Step(lhs, "the same", ("s",)),), Domain(dims=(n,)), (soft,))
    said = str(caught.value)
    assert "a symbol of the claim (n, p, s); use T in the claim or declare it in its Domain " \
           "(ranges=, constants= or dims=), or make it one of the definition's params" in said
    with pytest.raises(DerivationError, match=r"add j to the variables of h or to the "
                                              r"definition's params"):
        Notation("h", (d, x)).define("x̂", xh, x[j], params=(i,))


def test_a_definition_that_changes_its_symbols_shape_is_refused():
    n = sp.Symbol("n", integer=True, positive=True)
    Y, W = sp.MatrixSymbol("Y", n, n), sp.MatrixSymbol("W", n, 1)
    with pytest.raises(DerivationError, match=r"Y is a n×n matrix, but its body W is a n×1 "
                                              r"matrix; a definition keeps its symbol's shape"):
        Definition("Y", Y, W)
    with pytest.raises(DerivationError, match=r"a is a scalar, but its body W is a n×1 matrix"):
        Definition("a", a, W)
    with pytest.raises(DerivationError, match=r"xhat is a scalar, but its body"):
        Definition("x̂", xh, W, params=(i,))


def test_a_definition_that_claims_more_than_its_body_is_refused():
    pos = sp.Symbol("p", positive=True)
    with pytest.raises(DerivationError, match="p is declared positive, but SymPy cannot tell "
                                              "that its body"):
        Definition("p", pos, a - 1)
    with pytest.raises(DerivationError, match="the indices of xhat must be integer symbols"):
        Definition("x̂", xh, a, params=(a,))
    with pytest.raises(DerivationError, match="the parameter k is also bound"):
        Definition("x̂", xh, sp.Sum(x[k], (k, 1, d)), params=(k,))


def test_a_step_citing_a_definition_must_show_it():
    with pytest.raises(DerivationError, match=r"step 2 \('the definition of μ'\): cites the "
                                              r"definition 'x̂', but xhat\[i\] occurs neither"):
        Derivation("cite", "x̂", sp.Eq(sp.Sum(xh[k], (k, 1, d)), 0, evaluate=False), (),
                   (Step(sp.Sum(x[k], (k, 1, d)) - d * mu, "the definition of x̂", ("x̂",)),
                    Step(sp.Integer(0), "the definition of μ", ("x̂",))),
                   Domain(dims=(d,)), (XH,))


# --- unfolding, printing -------------------------------------------------------------------------

def test_unfolding_renames_a_bound_variable_an_argument_would_capture():
    A = sp.IndexedBase("A", real=True)
    row = sp.IndexedBase("r", real=True)
    total = Definition("r", row, sp.Sum(A[i, k], (k, 1, d)), params=(i,))
    out = unfold(row[k], ordered((total,)))
    kk = sp.Symbol("k'", integer=True, positive=True)
    assert out == sp.Sum(A[k, kk], (kk, 1, d))  # not Σ_k A_kk


def test_the_printer_writes_the_notation_people_use():
    from derivations.library import notation as nt

    adam = ordered((nt.MHAT_DEF,))
    assert latex(nt.mhat[nt.t], adam) == r"{\hat{m}}_{t}"
    assert latex(nt.mhat_t) == r"\hat{m}_{t}"  # never m_{hat}
    gelu = ordered((nt.PHI_DEF, nt.A_DEF))
    assert latex(nt.Phi(nt.xg), gelu) == r"\Phi\left(x\right)"
    assert legend(ordered((nt.A_DEF,)))[0]["latex"] == "a := 0.044715"
    assert legend(gelu)[0]["latex"] == (r"\Phi\left(x\right) := \frac{1}{2} \left(1 + "
                                        r"\operatorname{erf}{\left(\frac{x}{\sqrt{2}} \right)}"
                                        r"\right)")
    # d/dx for a function of x alone (its defined symbols aside), ∂ otherwise
    assert latex(sp.Derivative(nt.sig(2 * nt.ug), nt.xg), ordered((nt.SIG_DEF, nt.U_DEF))) \
        == r"\frac{d \sigma\left(2 u\right)}{d x}"
    assert latex(sp.Derivative(mu, x[j]), ordered((MU,))) == \
        r"\frac{\partial \mu}{\partial {x}_{j}}"
    # an unevaluated sum keeps the author's order; x_i − μ, n + 1 as written by hand
    assert latex(sp.Add(sp.Symbol("q"), sp.Symbol("p"), evaluate=False)) == "q + p"
    assert latex(x[i] - mu) == r"{x}_{i} - \mu"
    assert latex(sp.Sum(x[k], (k, d + 1, 2 * d))).startswith(r"\sum_{k=d + 1}")


def test_a_shipped_formula_nests_at_most_two_fractions_or_roots_deep():
    from derivations.tex import depth

    deep = []
    for c in derivations.claims():
        defined = c.definitions_used
        forms = [latex(c.statement, defined), *(x["latex"] for x in legend(defined)),
                 *(a.latex for a in c.assumptions),
                 *(latex(s.expr, defined) for s in c.steps)]
        deep += [f"{c.id}: {tex}" for tex in forms if depth(tex) > 2]
    assert deep == []
    assert depth(r"\frac{\frac{1}{\sqrt{x}}}{2}") == 3  # the measure can say no
