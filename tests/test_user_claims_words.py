"""A reader's claims in the report: translations come from their own file's ``ZH`` only (a name a
shipped claim also uses gets no shipped translation); without Chinese a claim is shown in English
and marked once; a malformed ``ZH`` is one line naming the file and the key, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reports.__main__ import main
from reports.pipeline import user_claims
from reports.view import edition

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "report_data.json"
MEAN = '''
import sympy as sp
from derivations import Assumption, Derivation, Domain, Step

mu, sigma = sp.symbols("mu sigma", real=True)
G = sp.Symbol("G", real=True)
CLAIM = Derivation(
    id="my_second_moment",
    title="The second moment is the squared mean plus the variance",
    statement=sp.Eq(G, mu**2 + sigma**2, evaluate=False),
    assumptions=(Assumption("stationarity", "E[g^2] is mu^2 + sigma^2",
                            rewrites=((G, mu**2 + sigma**2),)),),
    steps=(Step(mu**2 + sigma**2, "stationarity", by=("stationarity",)),),
    domain=Domain(),
)
'''
ZH = '''
ZH = {"my_second_moment": {"title": "二阶矩等于均值的平方加方差",
                           "assumptions": {"stationarity": {"name": "我的平稳性"}}}}
'''


def _user_data(tmp_path: Path, body: str) -> dict:
    path = tmp_path / "mine.py"
    path.write_text(body, encoding="utf-8")
    user_claims.check([path])
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    data["user_claims"] = user_claims.derive([path])
    return data


def _mine(view: dict) -> dict:
    return next(t for t in view["topics"] if t["id"] == "yours")["claims"][0]


def _plain(prose) -> str:
    return "".join(str(p) if isinstance(p, str) else p.source for p in prose.parts)


def test_a_name_a_shipped_claim_uses_gets_no_shipped_translation(tmp_path):
    data = _user_data(tmp_path, MEAN)
    zh = _mine(edition.build_view(data, [], "zh"))
    (a,) = zh["assumptions"]
    # the shipped "stationarity" reads 平稳性 / "every g_i has the same mean μ ..."
    assert _plain(a["name"]) == "stationarity" and _plain(a["text"]) == "E[g^2] is mu^2 + sigma^2"
    assert not a["name"].missing and not a["text"].missing and not zh["title"].missing
    assert _plain(zh["steps"][0]["rule"]) == "stationarity"  # a shipped rule's words, not 平稳性
    assert zh["untranslated"]  # marked once, for the whole claim
    assert not _mine(edition.build_view(data, [], "en"))["untranslated"]


def test_a_claim_with_its_own_chinese_shows_it(tmp_path):
    data = _user_data(tmp_path, MEAN + ZH)
    assert data["user_claims"][0]["zh"]["title"] == "二阶矩等于均值的平方加方差"
    zh = _mine(edition.build_view(data, [], "zh"))
    assert _plain(zh["title"]) == "二阶矩等于均值的平方加方差"
    assert _plain(zh["assumptions"][0]["name"]) == "我的平稳性"
    assert zh["untranslated"]  # the rule and the assumption's text have no Chinese yet
    full = MEAN + ZH.replace('"name": "我的平稳性"', '"name": "我的平稳性", "text": "二阶矩已知"') \
        + 'ZH["my_second_moment"]["rules"] = {"stationarity": "由我的假设"}\n'
    zh = _mine(edition.build_view(_user_data(tmp_path, full), [], "zh"))
    assert not zh["untranslated"] and _plain(zh["steps"][0]["rule"]) == "由我的假设"


@pytest.mark.parametrize("zh, needle", [
    ('ZH = ["x"]', "mine.py: ZH: expected a dict {claim id: {...}}, got list"),
    ('ZH = {"lse_gradient": {}}', "mine.py: ZH['lse_gradient']: expected one of your claim ids "
                                  "['my_second_moment'], got 'lse_gradient'"),
    ('ZH = {"my_second_moment": {"titel": "x"}}', "ZH['my_second_moment']['titel']: expected one "
                                                  "of ['title', 'rules', 'assumptions', "
                                                  "'definitions'], got 'titel'"),
    ('ZH = {"my_second_moment": {"rules": {"by assumption": "x"}}}',
     "ZH['my_second_moment']['rules']: expected one of the claim's rules ['stationarity'], "
     "got 'by assumption'"),
    ('ZH = {"my_second_moment": {"assumptions": {"stationarity": "平稳"}}}',
     "ZH['my_second_moment']['assumptions']['stationarity']: expected a dict with 'name' and/or "
     "'text', got '平稳'"),
    ('ZH = {"my_second_moment": {"title": 3}}',
     "ZH['my_second_moment']['title']: expected a non-empty str, got 3"),
])
def test_a_malformed_zh_is_one_line_exit_2(tmp_path, capsys, zh, needle):
    path = tmp_path / "mine.py"
    path.write_text(MEAN + zh + "\n", encoding="utf-8")
    code = main(["build", "--claims", str(path), "--only-claims", "--out", str(tmp_path / "o"),
                 "--no-pdf", "--cache-dir", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert needle in err, err


def test_a_matrix_counterexample_is_shown_as_matrices_sizes_first():
    from reports.view.model import point_view

    point = {"A[0,0]": "1.5", "A[0,1]": "2", "A[1,0]": "3", "A[1,1]": "4", "m": "2",
             "n": "2", "x": "0.25", "z[1]": "7"}
    shown = point_view(point)
    assert [name for name, _, _ in shown] == ["m", "n", "x", "z[1]", "A"]
    assert shown[-1] == ("A", "[[1.5, 2], [3, 4]]", [["1.5", "2"], ["3", "4"]])
    # a value that is not a whole number is never taken for a size
    assert point_view({"k": "2.0", "n": "3"})[0][0] == "n"
