"""Errata registry: validation, evidence that discriminates note from correction, quote check."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reports.audit import errata, evidence, notes
from reports.audit.errata import checks_optim
from reports.view.model import validate as validate_report

REPO = Path(__file__).resolve().parents[1]
SHARED_NOTES = REPO.parent / "shared" / "notes"
RECORDS = errata.read()
ERRATA = [r for r in RECORDS if r["verdict"] in errata.NEEDS_CORRECTION]
CONFIRMED = [r for r in RECORDS if r["verdict"] not in errata.NEEDS_CORRECTION]


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
    assert len(ERRATA) >= 10 and any(r["verdict"] == "error" for r in ERRATA)


def test_known_misplaced_bracket_is_an_error():
    rec = next(r for r in RECORDS if r["id"] == "n000-misplaced-bracket")
    assert rec["verdict"] == "error" and "V" in rec["claim_latex"].split(r"\right)")[0]


def test_quotes_are_short_single_line_locators():
    for r in RECORDS:
        assert 0 < len(r["quote"]) <= errata.MAX_QUOTE, r["id"]
        assert "\n" not in r["quote"], r["id"]


def test_every_erratum_has_its_own_evidence_function():
    names = [r["evidence"] for r in ERRATA]
    assert len(names) == len(set(names))


def test_loaded_records_fit_the_report_schema(audit):
    data = json.loads((REPO / "tests" / "fixtures" / "report_data.json").read_text("utf-8"))
    data["errata"] = json.loads(json.dumps(audit, ensure_ascii=False))
    validate_report(data)
    for r in audit["records"]:
        assert r["evidence"]["kind"] == "computation"
        assert r["evidence"]["passed"] is True, (r["id"], r["evidence"]["detail"])
        assert r["evidence"]["detail"]


# ----------------------------------------------------------------------------- evidence
@pytest.mark.parametrize("rec", ERRATA, ids=[r["id"] for r in ERRATA])
def test_erratum_evidence_supports_correction_and_rejects_note(rec):
    fixed = errata.run_evidence(rec["evidence"], "correction")
    as_noted = errata.run_evidence(rec["evidence"], "note")
    assert fixed["passed"], fixed["detail"]
    assert not as_noted["passed"], as_noted["detail"]
    assert not as_noted["detail"].startswith("raised"), as_noted["detail"]


@pytest.mark.parametrize("rec", CONFIRMED, ids=[r["id"] for r in CONFIRMED])
def test_confirmed_claim_holds_as_the_note_states_it(rec):
    result = errata.run_evidence(rec["evidence"], "note")
    assert result["passed"], result["detail"]


def test_evidence_is_deterministic():
    for name in ("sqrt_scaling_needs_zero_mean", "residual_singular_value_below_one"):
        assert errata.run_evidence(name) == errata.run_evidence(name)


def test_bad_version_is_a_clear_error():
    with pytest.raises(ValueError, match=r"expected one of \('correction', 'note'\), got 'both'"):
        evidence.misplaced_bracket("both")


def test_crashing_evidence_is_reported_as_failed(monkeypatch):
    def broken(version="correction"):
        raise ZeroDivisionError("boom")

    broken.__module__ = evidence.__name__
    monkeypatch.setitem(evidence.CHECKS, "exp_overflow", broken)
    out = errata.run_evidence("exp_overflow")
    assert out["passed"] is False and "ZeroDivisionError: boom" in out["detail"]


def test_residual_counterexample_numbers():
    detail = checks_optim.residual_singular_value_below_one().detail
    assert r"$\sigma_{\min}(I + J)$ = 0.9000" in detail


def test_note_numeric_examples_recomputed():
    assert checks_optim.powers_of_ten_layers("note").passed
    assert "2.593742" in checks_optim.powers_of_ten_layers().detail
    assert "(0.2689, 0.7311)" in evidence.softmax_12().detail
    assert "1024/64 = 16" in evidence.scaled_1024().detail


# ----------------------------------------------------------------------------- validation
BASE = {
    "id": "x-1", "note": "000_a.txt", "quote": "短句", "claim_latex": "a=b",
    "scope": "transformer-math", "verdict": "error", "reason": "Why.", "reason_zh": "原因。",
    "correction_latex": "a=c", "correction_text": "Because.", "correction_text_zh": "因为。",
    "evidence": "misplaced_bracket",
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"verdict": "wrong"}, r"record 'x-1': verdict expected one of .*got 'wrong'"),
        ({"quote": "长" * 61}, r"record 'x-1': quote expected at most 60 characters, got 61"),
        ({"quote": " lead"}, r"record 'x-1': quote expected one line"),
        ({"correction_latex": None}, r"record 'x-1': missing 'correction_latex'"),
        ({"correction_text": ""}, r"record 'x-1': 'correction_text' expected a non-empty"),
        ({"reason": None}, r"record 'x-1': missing 'reason'"),
        ({"reason_zh": None}, r"record 'x-1': missing 'reason_zh'"),
        ({"correction_text_zh": None}, r"record 'x-1': missing 'correction_text_zh'"),
        ({"verdict": "out-of-scope"}, r"record 'x-1': verdict expected one of"),
        ({"scope": "maths"}, r"record 'x-1': scope expected one of .*got 'maths'"),
        ({"cross_check": "no_such_check"}, r"record 'x-1': cross_check expected a function"),
        ({"verdict": "correct", "correction_text": None, "correction_text_zh": None,
          "correction_latex": None, "reason": "The note is wrong here."},
         r"record 'x-1': reason says 'is wrong', which contradicts verdict 'correct'"),
        ({"verdict": "correct", "correction_text": None, "correction_text_zh": None,
          "correction_latex": None, "reason_zh": "讲义此处有误。"},
         r"record 'x-1': reason_zh says '有误'"),
        ({"verdict": "correct"}, r"record 'x-1': verdict 'correct' but a correction is given"),
        ({"reason": "Recomputed: 2 = 2."}, r"reason says 'recomputed', which contradicts"),
        ({"evidence": "no_such_check"}, r"record 'x-1': evidence expected a function .*"
                                        r"got 'no_such_check'"),
        ({"evidence": "pick"}, r"record 'x-1': evidence expected a function"),
        ({"note": "../x.txt"}, r"record 'x-1': note expected a \.txt file name"),
        ({"see_also": ["nope"]}, r"record 'x-1': see_also expected derivation ids"),
        ({"colour": "red"}, r"record 'x-1': unknown keys \['colour'\]"),
        ({"id": "has space"}, r"record #1: id expected"),
    ],
)
def test_invalid_record_names_the_record(change, message):
    rec = {k: v for k, v in (BASE | change).items() if v is not None}
    with pytest.raises(errata.ErrataError, match=message):
        errata.validate({"record": [rec]})


def test_duplicate_ids_rejected():
    with pytest.raises(errata.ErrataError, match="record 'x-1': duplicate id"):
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
        return evidence.Result(True, "")

    assert "lookalike" not in evidence.CHECKS
    with pytest.raises(errata.ErrataError, match="registered with"):
        errata.validate({"record": [BASE | {"evidence": "lookalike"}]})
    with pytest.raises(ValueError, match="'misplaced_bracket': registered twice"):
        evidence.check(evidence.misplaced_bracket)


def test_valid_record_passes_validation():
    (rec,) = errata.validate({"record": [BASE]})
    assert rec["see_also"] == [] and rec["cross_check"] is None


def test_registry_file_errors(tmp_path):
    with pytest.raises(errata.ErrataError, match="cannot read"):
        errata.read(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[record]\nid = 1", encoding="utf-8")
    with pytest.raises(errata.ErrataError, match="bad.toml"):
        errata.read(bad)
    with pytest.raises(errata.ErrataError, match="expected a list of"):
        errata.validate({"records": []})


# ----------------------------------------------------------------------------- quote check CLI
def _cli(*args, cwd=REPO):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "reports.audit.notes", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def _fake_notes(directory: Path, drop: str | None = None) -> None:
    """Note files made of the registry's quotes, so the check runs without the real notes."""
    by_note: dict[str, list[str]] = {}
    for r in RECORDS:
        if r["id"] != drop:
            by_note.setdefault(r["note"], []).append(r["quote"])
        else:
            by_note.setdefault(r["note"], [])
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
    assert "record 'a': missing 'note'" in proc.stderr


def test_check_in_process_reports_every_stale_quote(tmp_path):
    _fake_notes(tmp_path)
    for r in ERRATA[:2]:
        path = tmp_path / r["note"]
        path.write_text(path.read_text("utf-8").replace(r["quote"], "∅"), encoding="utf-8")
    code, lines = notes.check(tmp_path)
    assert code == 1
    assert {line.split(":")[1].split()[0] for line in lines} >= {r["id"] for r in ERRATA[:2]}
