"""A claims file whose sp.Float arithmetic rounded its numbers before the engine saw them is
refused, naming the claim and both readings; Floats written and used as they are load as
before (derivations.floatbuild)."""

from __future__ import annotations

import textwrap

import pytest
import sympy as sp

from derivations import claimfiles, floatbuild

HEAD = """
import sympy as sp
from derivations import Derivation, Domain, Step
v = sp.Symbol("v", positive=True)
"""


def _file(tmp_path, body: str):
    path = tmp_path / "mine.py"
    path.write_text(textwrap.dedent(HEAD) + textwrap.dedent(body), encoding="utf-8")
    return path


def test_a_claim_rounded_when_the_file_ran_is_refused(tmp_path):
    # variables: Adam's correction at t = 10^6 with β₂ written as a Float (exactly 1 − 10^-217.8)
    path = _file(tmp_path, """
        CLAIMS = [Derivation("saturated", "v / (1 - b^N) = v",
                             sp.Eq(v / (1 - sp.Float("0.9995") ** (10**6)), v, evaluate=False),
                             (), (Step(v, "the correction is 1"),), Domain())]
        """)
    with pytest.raises(claimfiles.ClaimFileError) as err:
        claimfiles.load(str(path))
    message = str(err.value)
    assert "'saturated'" in message and "at 15 digits Eq(v, v)" in message
    assert "sp.Rational" in message


def test_a_power_of_a_float_rounded_in_binary_is_refused(tmp_path):
    # 0.9³ in double precision prints as 0.7290000000000001: the claim would not be about 0.729
    path = _file(tmp_path, """
        c = sp.Float("0.9") ** 3
        CLAIMS = [Derivation("cube", "c v = c v", sp.Eq(c * v, sp.Rational(729, 1000) * v,
                             evaluate=False), (), (Step(sp.Rational(729, 1000) * v, "0.9³"),),
                             Domain())]
        """)
    with pytest.raises(claimfiles.ClaimFileError, match="'cube'.*7290000000000001"):
        claimfiles.load(str(path))


@pytest.mark.parametrize("number", ['sp.Float("0.1")', "Float(0.5)", 'sp.Float("2.5") ** 2'])
def test_a_float_used_as_written_loads_as_before(tmp_path, number):
    path = _file(tmp_path, f"""
        from sympy import Float
        CLAIMS = [Derivation("scaled", "c v = c v", sp.Eq({number} * v, {number} * v,
                             evaluate=False), (), (Step({number} * v, "as written"),),
                             Domain())]
        """)
    claim, = claimfiles.load(str(path))
    assert not claim.statement.atoms(sp.Float)  # read as the decimal it prints as


def test_only_a_file_that_names_float_is_run_twice(tmp_path):
    assert floatbuild.makes_floats("import sympy as sp\nx = sp.Float('0.1')\n")
    assert floatbuild.makes_floats("from sympy import Float\n")
    assert not floatbuild.makes_floats("import sympy as sp\nx = sp.Rational(1, 10) * 0.5\n")
    # the patch is undone: sp.Float is SymPy's class again, whatever happened inside
    with pytest.raises(RuntimeError), floatbuild.precise_floats():
        assert sp.Float("0.1")._prec > 3000
        raise RuntimeError
    assert sp.Float is sp.core.numbers.Float and sp.Float("0.1")._prec == 53
