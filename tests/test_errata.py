"""Errata registry: validation, evidence that can fail and tells the versions apart, quote check."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from reports.audit import errata, evidence, formula, notes
from reports.audit.checks import residual
from reports.view.model import validate as validate_report

REPO = Path(__file__).resolve().parents[1]
SHARED_NOTES = REPO.parent / "shared" / "notes"
RECORDS = errata.read()
ERRATA = [r for r in RECORDS if r["verdict"] in errata.NEEDS_CORRECTION]
COMPUTED = [r for r in RECORDS if r["evidence"] is not None]


# ----------------------------------------------------------------------------- registry content
def test_every_note_is_audited_and_summary_matches(audit):
    notes_seen = {r["note"] for r in audit["records"]}
    assert notes_seen == {
        "000_621967656cfd78b6.txt", "002_da94e4b5210d0f8d.txt", "003_a83e13780b5fae71.txt"}
    for note in notes_seen:
        counts = {}
        for r in audit["records"]:
            if r["note"] == note:
                counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        assert audit["summary"][note] == counts
        # the report says how much of the note the audit covers, as `notes check` measures it
        cov = audit["notes"][note]["coverage"]
        assert cov["marks"] and 0 < cov["covered"] <= cov["sentences"]
        assert f"{cov['covered']}/{cov['sentences']} sentences" in "\n".join(
            notes.check(SHARED_NOTES)[1])
    assert len(ERRATA) >= 10 and any(r["verdict"] == "error" for r in ERRATA)


def test_the_source_typo_the_note_fixes_is_reported_not_an_error():
    rec = next(r for r in RECORDS if r["id"] == "n000-misplaced-bracket")
    assert rec["verdict"] == "reported"
    assert "V" in rec["source_latex"].split(r"\right)")[0]
    assert rec["correction_latex"].rstrip().endswith("V")
    assert not errata.run_evidence(rec["evidence"], "source")["passed"]
    assert errata.run_evidence(rec["evidence"], "note")["passed"]


def test_quotes_are_short_single_line_locators():
    for r in RECORDS:
        assert 0 < len(r["quote"]) <= errata.MAX_QUOTE, r["id"]
        assert "\n" not in r["quote"], r["id"]


def test_every_erratum_claim_has_its_own_evidence_function():
    """Records on one claim (a claim_group) may share a computation; different claims may not."""
    owner = {}
    for r in ERRATA:
        if r["evidence"] is None:
            continue
        claim = r["claim_group"] or r["id"]
        assert owner.setdefault(r["evidence"], claim) == claim, (r["id"], r["evidence"])


def test_loaded_records_fit_the_report_schema(audit):
    data = json.loads((REPO / "tests" / "fixtures" / "report_data.json").read_text("utf-8"))
    data["errata"] = json.loads(json.dumps(audit, ensure_ascii=False))
    validate_report(data)
    for r in audit["records"]:
        assert r["evidence"]["kind"] in ("computation", "sources"), r["id"]
        assert (r["evidence"]["kind"] == "sources") == bool(r["sources"] and not any(
            row["version"] == "note" for row in r["evidence_view"]["rows"])), r["id"]
        assert r["evidence"]["passed"] is True, (r["id"], r["evidence"]["detail"])
        assert r["evidence"]["detail"]


# ----------------------------------------------------------------------------- evidence
@pytest.mark.parametrize("rec", COMPUTED, ids=[r["id"] for r in COMPUTED])
def test_evidence_tells_the_note_from_the_alternative_the_verdict_names(rec):
    """An erratum's note fails and its correction holds; a reported typo's source fails and the
    note's fix holds; a correct claim holds and a wrong variant of it fails."""
    right, wrong = errata.VERSIONS_BY_VERDICT[rec["verdict"]]
    held = errata.run_evidence(rec["evidence"], right, rec["quote"])
    failed = errata.run_evidence(rec["evidence"], wrong, rec["quote"])
    assert held["passed"], held["detail"]
    assert not failed["passed"], failed["detail"]
    assert not failed["detail"].startswith("the computation raised"), failed["detail"]


@pytest.mark.parametrize("name", sorted(evidence.CHECKS))
def test_every_registered_check_can_fail(name):
    assert evidence.discrimination_problem(evidence.CHECKS[name]) is None


# ----------------------------------------------------------------------------- the note's own words
@pytest.mark.parametrize("rec", COMPUTED, ids=[r["id"] for r in COMPUTED])
def test_each_check_computes_the_note_as_written(rec):
    """The input of the version a quote states (the note's; the source's for a slip the note
    reports) is read from that quote — exact words of it, and their own number or formula, or a
    stated reading — and that input alone decides: the note's version fails exactly when the
    verdict says the note is wrong, and the other version's input gives the other outcome."""
    fn = evidence.CHECKS[rec["evidence"]]
    said = evidence.said_for(fn, rec["quote"])
    assert said is not None and said.fragment in rec["quote"], rec["id"]
    assert evidence.said_problem(said) is None, evidence.said_problem(said)
    # the failing input of an erratum, or of a reported slip, is the quote's; a correct claim's
    # quote is the input that holds
    quoted_holds = rec["verdict"] == "correct"
    assert (fn.right if quoted_holds else fn.wrong) == fn.quoted, rec["id"]
    assert fn.__wrapped__(said.value).holds is quoted_holds, rec["id"]
    assert fn.__wrapped__(fn.other).holds is not quoted_holds, rec["id"]


def test_every_quoted_input_belongs_to_a_record():
    """No check carries words that no record quotes (an invented version)."""
    quotes: dict[str, list[str]] = {}
    for r in RECORDS:
        for key in ("evidence", "cross_check"):
            if r[key]:
                quotes.setdefault(r[key], []).append(r["quote"])
    dead = [(name, s.fragment) for name, fn in evidence.CHECKS.items() for s in fn.saids
            if not any(s.fragment in q for q in quotes.get(name, []))]
    assert dead == []


@pytest.mark.parametrize(("said", "problem"), [
    (evidence.Said("至少为1", 1), None),
    (evidence.Said("1.1^10≈2.59", "1.1^{10}≈2.59"), None),
    (evidence.Said("∂W∂L=XT∂Y∂L", r"X^\top\frac{\partial L}{\partial Y}"), None),
    (evidence.Said("不关注", 0.0, ("weight 0", "权重为 0")), None),
    # an invented number, a formula the quote does not write, a yes/no without a reading
    (evidence.Said("至少为1", 2), "number 2 is not written in the quote"),
    (evidence.Said("∂W∂L=XT∂Y∂L", r"G^\top X"), "that the quote does not write"),
    (evidence.Said("本质是线性操作", True), "neither a number nor a formula"),
])
def test_a_quoted_input_must_be_what_the_words_say(said, problem):
    got = evidence.said_problem(said)
    assert (got is None) if problem is None else (problem in got), got


def test_a_record_whose_words_the_check_does_not_read_is_rejected():
    with pytest.raises(errata.ErrataError, match=r"evidence: 'adam_eps_inside' reads none of this "
                                                 r"record's words"):
        errata.validate({"record": [BASE | {"quote": "另一句话"}]})


def test_a_check_deaf_to_its_input_cannot_serve():
    """A check whose outcome is fixed by construction, whatever the note's input, is named."""
    def fixed(value):
        return evidence.verdict([evidence.Fact("raised", error=evidence.Text("x"))],
                                evidence.Fact("raised", error=evidence.Text(str(value))), True)

    fixed.__module__ = __name__
    deaf = evidence.check(right="correction", wrong="note", said=evidence.Said("至少为1", 1),
                          other=0)(fixed)
    try:
        assert "cannot fail" in evidence.discrimination_problem(deaf)
    finally:
        evidence.CHECKS.pop("fixed")


def test_the_checks_that_could_not_fail_are_gone():
    gone = {"embedding_dimension", "token_counts", "residual_toy_sign", "slight_amplification",
            "adam_bias_correction", "uniform_equal_scores", "one_head_several_tokens",
            "positions_needed"}
    assert gone.isdisjoint(evidence.CHECKS)
    by_id = {r["id"]: r for r in RECORDS}
    # their records now rest on the note's own numbers, or on the literature
    assert by_id["n003-six-tokens"]["evidence"] == "token_split"
    assert by_id["n002-tokenization"]["sources"] and by_id["n002-tokenization"]["evidence"] is None
    assert by_id["n000-residual-toy"]["evidence"] == "powers_of_ten_layers"


# ----------------------------------------------------------------------------- quoted formulas
@pytest.mark.parametrize(("tex", "env", "want"), [
    (r"-\frac{\eta}{\sqrt{\hat{v}_t}+\epsilon}\hat{m}_t",
     {"eta": 0.1, "hat v_t": 4.0, "hat m_t": 1.0, "epsilon": 0.0}, -0.05),
    (r"\frac{\eta}{\sqrt{\hat{v}_t + \varepsilon}} \hat{m}_t",
     {"eta": 0.1, "hat v_t": 4.0, "hat m_t": 1.0, "epsilon": 5.0}, 0.1 / 3),
    (r"\frac{n(n-1)}{2}", {"n": 4}, 6.0),
    ("1×(−1)", {}, -1.0),
    (r"\sum_{n=0}^{N-1}x_n", {"x_n": np.array([1.0, 2.0])}, 3.0),
])
def test_a_quoted_formula_is_evaluated_as_written(tex, env, want):
    assert formula.evaluate(tex, **env) == pytest.approx(want, rel=1e-15)


def test_quoted_matrix_formulas_follow_the_shapes():
    rng = np.random.default_rng(0)
    x, g, w = rng.normal(size=(3, 2)), rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    np.testing.assert_allclose(formula.evaluate(r"X^\top G", X=x, G=g), x.T @ g)
    np.testing.assert_allclose(formula.evaluate("GW^{T}", G=g, W=w), g @ w.T)
    s = rng.normal(size=(3, 1))
    np.testing.assert_allclose(formula.evaluate(r"\operatorname{diag}(s)-ss^\top", s=s),
                               np.diag(s[:, 0]) - s @ s.T)


@pytest.mark.parametrize(("tex", "message"), [
    ("a ? b", "unexpected '?'"),
    (r"\frac{a}", "expected more"),
    ("a b", "no value for 'b'"),
    (r"\operatorname{tanh}(x)", "unknown function 'tanh'"),
])
def test_a_formula_outside_the_grammar_is_a_clear_error(tex, message):
    with pytest.raises(formula.FormulaError, match=re.escape(message)):
        formula.evaluate(tex, a=1.0, x=1.0)


@pytest.mark.parametrize(("tex", "holds"), [
    ("0.1^{10}=0.0000000001", True), ("1.1^{10}≈2.59", True), ("1.1^{10}≈2.60", False),
    ("1.1^{10}>1", True), ("1+0.1=1.2", False),
])
def test_written_arithmetic_is_exact(tex, holds):
    assert formula.relation(tex)[3] is holds


def _fake(right="note", wrong="foil", passes=(True, True), facts=(0, 0)):
    """A check registered nowhere, built like a real one."""
    def fn(version):
        i = 0 if version == right else 1
        return evidence.Result(passes[i], version, [evidence.Fact("raised", error=evidence.Text(
            str(facts[i])))], evidence.Fact("raised", error=evidence.Text(version)))
    fn.__name__, fn.right, fn.wrong = "fake", right, wrong
    return fn


@pytest.mark.parametrize(("passes", "facts", "message"), [
    ((True, True), (0, 0), "it cannot fail"),
    ((False, False), (0, 0), "expected to hold with 'note'"),
    ((True, False), (0, 1), "its facts differ"),
])
def test_a_check_that_cannot_fail_or_shifts_its_facts_is_named(passes, facts, message):
    assert evidence.discrimination_problem(_fake(passes=(True, False))) is None
    problem = evidence.discrimination_problem(_fake(passes=passes, facts=facts))
    assert problem and message in problem and problem.startswith("fake:")


def test_every_registered_check_is_used():
    used = {r[k] for r in RECORDS for k in ("evidence", "cross_check") if r[k]}
    assert set(evidence.CHECKS) == used


def test_evidence_is_deterministic():
    for name in ("scaling_keeps_softmax_trainable", "residual_at_least_one", "query_role"):
        fn = evidence.CHECKS[name]
        for version in (fn.right, fn.wrong):
            assert errata.run_evidence(name, version) == errata.run_evidence(name, version)


def test_bad_version_is_a_clear_error():
    with pytest.raises(ValueError, match=r"expected one of \('note', 'source'\), got 'both'"):
        evidence.CHECKS["source_bracket_typo"]("both")


def test_check_versions_must_be_known_and_distinct():
    said = evidence.Said("x", 1)
    with pytest.raises(evidence.EvidenceError, match=r"expected one of .*got 'paper'"):
        evidence.check(right="paper", wrong="note", said=said, other=0)
    with pytest.raises(evidence.EvidenceError, match="must differ"):
        evidence.check(right="note", wrong="note", said=said, other=0)
    with pytest.raises(evidence.EvidenceError, match="said expected a Said"):
        evidence.check(right="correction", wrong="note", said="至少为1", other=0)
    with pytest.raises(evidence.EvidenceError, match="one version must be the quote's"):
        evidence.check(right="correction", wrong="foil", said=said, other=0)


def test_crashing_evidence_is_reported_as_failed(monkeypatch):
    def broken(version="correction", said=None):
        raise ZeroDivisionError("boom")

    broken.right, broken.wrong = "note", "foil"
    broken.__module__ = evidence.__name__
    monkeypatch.setitem(evidence.CHECKS, "exp_overflow", broken)
    out = errata.run_evidence("exp_overflow")
    assert out["passed"] is False and "ZeroDivisionError: boom" in out["detail"]
    assert "ZeroDivisionError: boom" in out["detail_zh"] and out["detail_zh"].startswith("计算出错")


def test_residual_counterexample_numbers():
    detail = residual.residual_at_least_one().detail
    assert r"$\sigma_{\min}(I + J)$ = 0.9000" in detail and "fails in 0 of 4" in detail
    # the note's bound, 1, read from 「至少为1」, fails for the diagonal and the MLP Jacobian
    assert "fails in 2 of 4" in residual.residual_at_least_one("note").detail


def test_note_numeric_examples_recomputed():
    fn = residual.powers_of_ten_layers
    for said in fn.saids:
        assert fn("note", said=said).passed, said.fragment
    assert "2.593742" in fn().detail
    assert "(0.2689, 0.7311)" in evidence.CHECKS["softmax_12"]().detail
    assert r"\frac{1024}{\sqrt{4096}}=\frac{1024}{64}=16" in evidence.CHECKS["scaled_1024"]().detail


# ----------------------------------------------------------------------------- validation
BASE = {
    "id": "x-1",
    "note": "000_a.txt", "quote": r"\frac{\eta}{\sqrt{\hat{v}_t + \varepsilon}} \hat{m}_t",
    "claim_latex": "a=b",
    "scope": "transformer-math", "verdict": "error", "reason": "Why.", "reason_zh": "原因。",
    "correction_latex": "a=c", "correction_text": "Because.", "correction_text_zh": "因为。",
    "evidence": "adam_eps_inside",
}
IMPRECISE = BASE | {"verdict": "imprecise", "missing_condition": "only for unit vectors",
                    "missing_condition_zh": "只在单位向量时成立", "evidence": "dot_is_cosine",
                    "quote": "转化为向量点积（余弦相似度）"}
CORRECT = {k: v for k, v in BASE.items() if not k.startswith("correction")} | {
    "verdict": "correct", "evidence": "softmax_12", "quote": "softmax 输出约 $[0.27, 0.73]$"}
REPORTED = BASE | {"verdict": "reported", "source_latex": "a=d", "quote": "Softmax(dkQKTV)",
                   "reason": "The source's slip, fixed by the note.",
                   "reason_zh": "原文的笔误，讲义已改正。", "evidence": "source_bracket_typo"}
HISTORY = BASE | {"scope": "history", "evidence": None,
                  "sources": [{"cite": "A. Author, A paper (1900)", "locator": "p. 1"}]}


@pytest.mark.parametrize(
    ("base", "change", "message"),
    [
        (BASE, {"verdict": "wrong"}, r"record 'x-1': verdict: expected one of .*got 'wrong'"),
        (BASE, {"quote": "长" * 61}, r"quote: expected at most 60 characters, got 61"),
        (BASE, {"quote": " lead"}, r"record 'x-1': quote: expected one line"),
        (BASE, {"correction_latex": None}, r"record 'x-1': correction_latex: missing"),
        (BASE, {"correction_text": ""}, r"correction_text: expected a non-empty"),
        (BASE, {"reason": None}, r"record 'x-1': reason: missing"),
        (BASE, {"reason_zh": None}, r"record 'x-1': reason_zh: missing"),
        (BASE, {"correction_text_zh": None}, r"record 'x-1': correction_text_zh: missing"),
        (BASE, {"verdict": "out-of-scope"}, r"record 'x-1': verdict: expected one of"),
        (BASE, {"scope": "maths"}, r"record 'x-1': scope: expected one of .*got 'maths'"),
        (BASE, {"cross_check": "no_such_check"}, r"record 'x-1': cross_check: expected a function"),
        (CORRECT, {"reason": "The note is wrong here."},
         r"reason: says 'is wrong', which contradicts verdict 'correct'"),
        (CORRECT, {"reason_zh": "讲义此处有误。"}, r"record 'x-1': reason_zh: says '有误'"),
        (CORRECT, {"correction_latex": "a=c"},
         r"correction_latex: expected none for verdict 'correct'"),
        (BASE, {"reason": "Recomputed: 2 = 2."}, r"reason: says 'recomputed', which contradicts"),
        (BASE, {"evidence": "no_such_check"},
         r"evidence: expected the name of a function .*got 'no_such_check'"),
        (BASE, {"evidence": "pick"}, r"record 'x-1': evidence: expected the name of a function"),
        (BASE, {"note": "../x.txt"}, r"record 'x-1': note: expected a \.txt file name"),
        (BASE, {"see_also": ["nope"]}, r"record 'x-1': see_also: expected derivation ids"),
        (BASE, {"colour": "red"}, r"record 'x-1': colour: unknown field"),
        (BASE, {"id": "has space"}, r"record #1: id: expected"),
        # what each verdict requires
        (IMPRECISE, {"missing_condition": None, "missing_condition_zh": None},
         r"record 'x-1': missing_condition: missing"),
        (IMPRECISE, {"missing_condition": "for unit vectors"},
         r"missing_condition: expected a clause beginning 'only '"),
        (IMPRECISE, {"missing_condition_zh": "单位向量时成立"},
         r"missing_condition_zh: expected a clause beginning 「只」"),
        (CORRECT, {"missing_condition": "only x", "missing_condition_zh": "只 x"},
         r"missing_condition: is for verdict 'imprecise' only, got verdict 'correct'"),
        (REPORTED, {"source_latex": None}, r"record 'x-1': source_latex: missing"),
        (REPORTED, {"reason": "A slip, fixed by the note."},
         r"reason: expected to name the source \('source'\)"),
        (REPORTED, {"reason_zh": "笔误，讲义已改正。"}, r"reason_zh: expected to name the source"),
        # the evidence's versions must be the ones the verdict compares
        (CORRECT, {"evidence": "adam_eps_inside"},
         r"evidence: 'adam_eps_inside' holds with 'correction' and fails with 'note', expected "
         r"'note' and 'foil' for verdict 'correct'"),
        (BASE, {"evidence": "softmax_12"}, r"expected 'correction' and 'note' for verdict 'error'"),
        (REPORTED, {"evidence": "adam_eps_inside"}, r"expected 'note' and 'source'"),
        # what a record rests on
        (BASE, {"evidence": None}, r"evidence: missing \(expected a registered function, or "
                                   r"sources for a source-based record\)"),
        (HISTORY, {"evidence": "adam_eps_inside"},
         r"a history record expected sources and no evidence"),
        (HISTORY, {"sources": None}, r"a history record expected sources"),
        (HISTORY, {"sources": [{"cite": "A paper"}]}, r"sources: expected a non-empty list of "
                                                      r"\{cite, locator\} tables"),
        (HISTORY, {"sources": []}, r"sources: expected a non-empty list"),
        # a reason that reads the note otherwise than literally says how
        (IMPRECISE, {"reason": "Read as alleviating, it holds for vanishing only."},
         r"expected 'reading' and 'reading_zh'"),
        (IMPRECISE, {"reading": "The note writes a; read as b."},
         r"reading: expected its translation reading_zh"),
        # a formula's Chinese twin: its words translated, its math the formula's own
        (BASE, {"claim_latex_zh": r"a=c\ \text{对每个键}"},
         r"claim_latex_zh: expected the math of claim_latex with only the words"),
        (CORRECT, {"correction_latex_zh": r"\text{更正}"},
         r"correction_latex_zh: expected beside correction_latex"),
    ],
)
def test_invalid_record_names_the_record(base, change, message):
    rec = {k: v for k, v in (base | change).items() if v is not None}
    with pytest.raises(errata.ErrataError, match=message):
        errata.validate({"record": [rec]})


@pytest.mark.parametrize("rec", [BASE, IMPRECISE, CORRECT, REPORTED, HISTORY,
                                 BASE | {"claim_latex": r"a=b\ \text{for every key}",
                                         "claim_latex_zh": r"a=b\ \text{对每个键}"},
                                 IMPRECISE | {"reading": "The note writes a; it is read as b.",
                                              "reading_zh": "原文为甲，按乙来读。"}])
def test_valid_records_pass_validation(rec):
    (out,) = errata.validate({"record": [{k: v for k, v in rec.items() if v is not None}]})
    assert out["see_also"] == [] and out["cross_check"] is None


def test_records_on_one_claim_carry_one_verdict():
    """The same claim (a claim_group, or the same formula) cannot get two verdicts, and two
    records with the same claim_latex must say that they state one claim."""
    # another sentence with the same words, which the shared check reads
    same = CORRECT | {"id": "x-2", "quote": "又：" + CORRECT["quote"]}
    grouped = [CORRECT | {"claim_group": "g"}, same | {"claim_group": "g"}]
    assert len(errata.validate({"record": copy.deepcopy(grouped)})) == 2
    split = [grouped[0], IMPRECISE | {"id": "x-2", "claim_group": "g", "claim_latex": "c=d"}]
    with pytest.raises(errata.ErrataError, match=r"record 'x-2': claim_group: 'g' expected one "
                                                 r"verdict, got 'imprecise' here and 'correct'"):
        errata.validate({"record": split})
    with pytest.raises(errata.ErrataError, match=r"record 'x-2': claim_latex: states the same "
                                                 r"claim as 'x-1', expected both in one "
                                                 r"claim_group"):
        errata.validate({"record": [CORRECT, same]})
    # one computation judging two records cannot find the note wrong in one and merely
    # imprecise in the other
    shared = IMPRECISE | {"id": "x-2", "quote": "又" + BASE["quote"], "claim_latex": "c=d",
                          "evidence": BASE["evidence"]}
    with pytest.raises(errata.ErrataError, match=r"record 'x-2': evidence: 'adam_eps_inside' is "
                                                 r"shared with 'x-1', expected the same verdict"):
        errata.validate({"record": [BASE, shared]})
    assert len(errata.validate({"record": [BASE, shared | {"verdict": "error",
                                                          "missing_condition": None,
                                                          "missing_condition_zh": None}]})) == 2
    with pytest.raises(errata.ErrataError, match="claim_group: expected letters"):
        errata.validate({"record": [CORRECT | {"claim_group": "a b"}]})


def test_registry_groups_hold_one_verdict_each():
    verdicts = {}
    for rec in RECORDS:
        if rec["claim_group"]:
            verdicts.setdefault(rec["claim_group"], set()).add(rec["verdict"])
    assert verdicts and all(len(v) == 1 for v in verdicts.values()), verdicts
    # the groups the second reading found: restated summary lines and repeated claims
    assert {"sqrt-pullback", "residual-lossless", "attention-output-wv",
            "attention-feature-mixing", "dot-direction", "residual-flow"} <= set(verdicts)


def test_duplicate_ids_rejected():
    with pytest.raises(errata.ErrataError, match="record 'x-1': id: expected a new id"):
        errata.validate({"record": [BASE, copy.deepcopy(BASE)]})


def test_see_also_is_checked_against_the_real_claim_ids():
    import derivations

    real = derivations.claims()[0].id
    (rec,) = errata.validate({"record": [BASE | {"see_also": [real]}]})
    assert rec["see_also"] == [real]
    with pytest.raises(errata.ErrataError, match=r"unknown \['softmax_jacobain'\]"):
        errata.validate({"record": [BASE | {"see_also": [real, "softmax_jacobain"]}]})


def test_evidence_registers_by_decorator_not_by_signature():
    def lookalike(version="correction"):
        return None

    assert "lookalike" not in evidence.CHECKS
    with pytest.raises(errata.ErrataError, match="registered with"):
        errata.validate({"record": [BASE | {"evidence": "lookalike"}]})
    with pytest.raises(ValueError, match="'softmax_12': registered twice"):
        evidence.check(right="note", wrong="foil", said=evidence.Said("x", 1), other=0)(
            evidence.CHECKS["softmax_12"].__wrapped__)


def test_registry_file_errors(tmp_path):
    with pytest.raises(errata.ErrataError, match="cannot read"):
        errata.read(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[record]\nid = 1", encoding="utf-8")
    with pytest.raises(errata.ErrataError, match="bad.toml"):
        errata.read(bad)
    with pytest.raises(errata.ErrataError, match=r"record: expected at least one \[\[record\]\]"):
        errata.validate({"records": []})


# ----------------------------------------------------------------------------- quote check CLI
def _cli(*args, cwd=REPO):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "reports.audit.notes", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _fake_notes(directory: Path, drop: str | None = None) -> None:
    """Note files made of the registry's quotes, one per line, so the check runs without the
    real notes."""
    by_note: dict[str, list[str]] = {}
    for r in RECORDS:
        by_note.setdefault(r["note"], [])
        if r["id"] != drop:
            by_note[r["note"]].append(r["quote"])
    for mark in errata.read_nonclaims():
        by_note.setdefault(mark["note"], []).append(mark["quote"])
    titles = errata.read_titles()
    for name, quotes in by_note.items():
        (directory / name).write_text("\n".join([titles[name], *quotes]), encoding="utf-8")


@pytest.mark.skipif(not SHARED_NOTES.is_dir(), reason="lecture notes not checked out")
def test_cli_real_notes_all_quotes_found():
    proc = _cli("check", "../shared/notes")
    assert proc.returncode == 0, proc.stderr
    marks = errata.read_nonclaims()
    assert f"ok: {len(RECORDS) + len(marks)} quotes" in proc.stdout
    assert proc.stdout.count("coverage: ") == 3


def test_cli_stale_quote_exit_1(tmp_path):
    victim = ERRATA[0]
    _fake_notes(tmp_path)
    assert _cli("check", str(tmp_path)).returncode == 0
    _fake_notes(tmp_path, drop=victim["id"])
    before = sorted(p.name for p in tmp_path.iterdir())
    proc = _cli("check", str(tmp_path))
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        f"stale quote: {victim['id']} in {victim['note']}: {victim['quote']!r}")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_cli_missing_directory_exit_2(tmp_path):
    proc = _cli("check", str(tmp_path / "nowhere"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "expected a directory" in proc.stderr


def test_cli_missing_note_file_exit_2(tmp_path):
    _fake_notes(tmp_path)
    (tmp_path / "003_a83e13780b5fae71.txt").unlink()
    proc = _cli("check", str(tmp_path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        f"error: note 003_a83e13780b5fae71.txt: expected a file in {tmp_path}, got none")


def test_cli_gbk_note_exit_2(tmp_path):
    _fake_notes(tmp_path)
    path = tmp_path / "000_621967656cfd78b6.txt"
    path.write_bytes(path.read_text(encoding="utf-8").encode("gbk", errors="replace"))
    proc = _cli("check", str(tmp_path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: note 000_621967656cfd78b6.txt: expected UTF-8, got byte")
    assert proc.stderr.count("\n") == 1


def test_cli_invalid_registry_exit_2(tmp_path):
    reg = tmp_path / "reg.toml"
    reg.write_text('[[record]]\nid = "a"\n', encoding="utf-8")
    _fake_notes(tmp_path)
    proc = _cli("check", str(tmp_path), "--registry", str(reg))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "reg.toml: record 'a': note: missing (expected a non-empty string)" in proc.stderr


def test_check_in_process_reports_every_stale_quote(tmp_path):
    _fake_notes(tmp_path)
    for r in ERRATA[:2]:
        path = tmp_path / r["note"]
        path.write_text(path.read_text("utf-8").replace(r["quote"], "∅"), encoding="utf-8")
    code, lines = notes.check(tmp_path)
    assert code == 1
    assert {line.split(":")[1].split()[0] for line in lines} >= {r["id"] for r in ERRATA[:2]}
