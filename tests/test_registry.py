"""The errata registry's one schema (reports/audit/registry.py): the project's registry and a
registry of your own notes are read by the same loader, `python -m reports audit` and `python -m
reports.audit.notes check` alike; the project's adds its house rules.  Also where a quote stands
in a note's math, and KaTeX's verdict on every formula at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reports.audit import errata, notes, registry
from reports.render import katex

ROOT = Path(__file__).resolve().parent.parent
NOTE = """# Softmax, my notes

The gradient is the softmax: $\\partial_j \\log Z = \\frac{e^{z_j}}{\\sum_k e^{z_k}}$.
Each entry of softmax(z) is positive, and the entries sum to 2.
Adding a constant to every logit leaves it unchanged.
"""
# README §7's format: no claim_latex, no Chinese, a correction in words, a note's version
YOURS = """
[[record]]
id = "lse-gradient"
note = "softmax.md"
quote = '\\frac{e^{z_j}}{\\sum_k e^{z_k}}'
verdict = "correct"
scope = "transformer-math"
reason = "Differentiating term by term gives $e^{z_j}/\\\\sum_k e^{z_k}$."
evidence = "claim:my_lse_gradient"

[[record]]
id = "softmax-sum"
note = "softmax.md"
quote = "the entries sum to 2"
verdict = "error"
scope = "transformer-math"
reason = "Each entry is an $e^{z_j}$ divided by the sum of all of them."
correction_text = "The entries sum to 1."
evidence = "check:softmax_sums_to_one"
note_version = "check:softmax_sums_to_two"
"""


def folder(tmp_path: Path, text: str = YOURS) -> tuple[Path, Path]:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "softmax.md").write_text(NOTE, encoding="utf-8")
    (tmp_path / "registry.toml").write_text(text, encoding="utf-8")
    return tmp_path / "notes", tmp_path / "registry.toml"


def check_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reports.audit.notes", "check", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_the_notes_check_reads_the_registry_the_readme_teaches(tmp_path):
    notes_dir, reg = folder(tmp_path)
    proc = check_cli(str(notes_dir), "--registry", str(reg))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "ok: 2 quotes found verbatim in 1 note",
        "coverage: softmax.md 《Softmax, my notes》: 2/4 sentences (50.0 %) carry a record",
        "coverage is not required of this registry; --min-coverage 95 requires it"]
    # coverage is required when asked for; a title the registry gives must match
    proc = check_cli(str(notes_dir), "--registry", str(reg), "--min-coverage", "95")
    assert proc.returncode == 1 and "expected at least 95 %" in proc.stderr
    reg.write_text('[notes."softmax.md"]\ntitle = "Softmax"\n' + YOURS, encoding="utf-8")
    proc = check_cli(str(notes_dir), "--registry", str(reg))
    assert proc.returncode == 1 and "registry says 'Softmax', the note says 'Softmax, my " \
        "notes'; make them the same" in proc.stderr


def test_one_loader_one_message_for_both_commands(tmp_path):
    """The field an earlier README named `correction` is refused by both, naming its name now."""
    notes_dir, reg = folder(tmp_path, YOURS.replace("correction_text =", "correction ="))
    said = "registry.toml: record 'softmax-sum': correction: unknown field; the field is " \
           "correction_text now"
    proc = check_cli(str(notes_dir), "--registry", str(reg))
    assert proc.returncode == 2 and proc.stderr.strip() == f"error: {said}"
    audit = subprocess.run([sys.executable, "-m", "reports", "audit", str(notes_dir),
                            "--registry", str(reg), "--out", str(tmp_path / "out")],
                           cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert audit.returncode == 2 and audit.stderr.strip() == f"audit: error: {said}"
    assert not (tmp_path / "out").exists()


def test_the_project_registry_is_the_schema_with_house_rules():
    raw = registry.parse(errata.REGISTRY)
    mine = registry.validate(raw, registry.YOURS).records
    assert [r["id"] for r in mine] == [r["id"] for r in errata.read()]
    # the house rules are more than the schema: a record of yours needs no Chinese, no formula
    rec = registry.validate(registry.parse_text(YOURS)).records[0]
    assert rec["claim_latex"] is None and rec["reason_zh"] is None
    with pytest.raises(registry.RegistryError, match=r"record 'lse-gradient': reason_zh: "
                                                     r"missing"):
        registry.validate(registry.parse_text(YOURS), errata.RULES)
    chinese = YOURS.replace('evidence = "claim:my_lse_gradient"',
                            'reason_zh = "逐项求导。"\nevidence = "claim:my_lse_gradient"')
    with pytest.raises(registry.RegistryError, match=r"record 'lse-gradient': claim_latex: "
                                                     r"missing"):
        registry.validate(registry.parse_text(chinese), errata.RULES)


@pytest.mark.parametrize(("change", "message"), [
    # the note's version fails: only beside an erratum's evidence, as a claim or a check
    ({"verdict": "correct", "correction_text": None}, "note_version: is for verdicts ['error', "
     "'imprecise'] (the note's statement fails), got verdict 'correct'"),
    ({"note_version": "softmax_12"}, "note_version: expected 'claim:ID' or 'check:FUNCTION', "
     "got 'softmax_12'"),
    ({"evidence": None}, "evidence: missing (expected 'claim:ID', 'check:FUNCTION' or a "
     "registered function, or sources for a source-based record)"),
    ({"evidence": "softmax_sums_to_one"}, "evidence: expected 'claim:ID' or 'check:FUNCTION' or "
     "the name of a function registered with reports.audit.evidence.check, got "
     "'softmax_sums_to_one', which is no registered function; write 'claim:softmax_sums_to_one' "
     "or 'check:softmax_sums_to_one'"),
    ({"correction_text": None}, "correction_text: missing (expected for verdict 'error': the "
     "correction in words, or correction_latex as a formula)"),
    ({"reason_zh": "理由。", "reason": None}, "reason: missing"),
    ({"correction_text_zh": "更正。", "correction_text": None, "correction_latex": "a=1"},
     "correction_text_zh: expected beside correction_text, which the record lacks"),
    # history is not computed: it rests on sources, which carry no pass mark
    ({"scope": "history"}, "a history record expected sources and no evidence (history is not "
     "computed)"),
    ({"sources": [{"cite": "A"}]}, "sources: expected a non-empty list of {cite, locator}"),
    ({"missing_condition": "for unit vectors"}, "missing_condition: is for verdict 'imprecise' "
     "only"),
    ({"note": "../softmax.md"}, "note: expected a file name in the notes folder, without a "
     "folder"),
])
def test_a_record_of_yours_is_checked_field_by_field(change, message):
    rec = {"id": "softmax-sum", "note": "softmax.md", "quote": "the entries sum to 2",
           "verdict": "error", "scope": "transformer-math", "reason": "Why.",
           "correction_text": "The entries sum to 1.", "evidence": "check:softmax_sums_to_one",
           "note_version": "check:softmax_sums_to_two"}
    rec = {k: v for k, v in (rec | change).items() if v is not None}
    with pytest.raises(registry.RegistryError) as caught:
        registry.validate({"record": [rec]}, file="registry.toml")
    assert str(caught.value).startswith("registry.toml: record 'softmax-sum': "), caught.value
    assert message in str(caught.value)


def test_a_source_based_record_of_yours_passes():
    rec = {"id": "h", "note": "a.md", "quote": "q", "verdict": "imprecise", "scope": "history",
           "reason": "Why.", "correction_text": "Who.",
           "sources": [{"cite": "A. Author (1900)", "locator": "p. 1"}]}
    (out,) = registry.validate({"record": [rec]}).records
    assert out["evidence"] is None and out["sources"] == rec["sources"]


# ----------------------------------------------------------------------------- quotes in math
@pytest.mark.parametrize(("quote", "shown"), [
    # inside a formula of the note: the note's math, typeset
    (r"\frac{e^{z_j}}{\sum_k e^{z_k}}", r"$\frac{e^{z_j}}{\sum_k e^{z_k}}$"),
    # over its opening delimiter: the words stay words, the delimiter is dropped
    (r"softmax: $\partial_j \log Z", r"softmax: $\partial_j \log Z$"),
    # no math: shown as written
    ("the entries sum to 2", None),
])
def test_a_quote_is_typeset_as_the_note_writes_its_math(quote, shown):
    assert notes.quote_math(NOTE, quote) == shown


def test_the_math_of_a_latex_note_is_found_by_its_delimiters():
    text = r"a \( x^2 \) b \[ y \] c $$ w $$ and \begin{align*} p &= q \end{align*} d \$5"
    assert [text[a:b] for _, _, a, b in notes.math_spans(text)] == [" x^2 ", " y ", " w ",
                                                                      " p &= q "]
    assert notes.quote_math(text, r"x^2 \) b \[ y") == "$x^2$ b $y$"
    assert notes.quote_math(text, "d \\$5") is None  # an escaped dollar is no formula


def test_a_number_ending_a_line_is_no_list_item():
    """"… sum to 2." at the end of a line ends a sentence; it is no item "2." of a list, which
    a space follows on its line (as "3. an item" in a note flattened to one line)."""
    text = "The entries sum to 2.\nAdding a constant changes nothing.\n1. an item\n"
    assert [text[a:b] for a, b in notes.sentences(text)] == [
        "The entries sum to 2.", "Adding a constant changes nothing.", "1. an item"]
    assert notes.coverage(text, ["the entries sum to 2"[4:]])["straddling"] == []
    flat = "The entries sum to 2. 3. an item"
    assert [flat[a:b] for a, b in notes.sentences(flat)] == ["The entries sum to 2.",
                                                            "3. an item"]


@pytest.mark.skipif(not katex.node_available(), reason="KaTeX needs Node.js")
def test_katex_names_every_formula_it_cannot_typeset():
    found = katex.problems([katex.Tex(r"\frac{a}{b}"), katex.Tex(r"\text{\backslash x}"),
                            katex.Tex(r"\frac{a}{")])
    assert found[0] is None and "Undefined control sequence: \\backslash" in found[1]
    assert "Unexpected end of input" in found[2] and "\u0332" not in found[1]
