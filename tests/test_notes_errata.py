"""The drafted errata registry: one record per failed link, accepted by ``reports audit``."""

from __future__ import annotations

from pathlib import Path

from derivations.notes import check_notes, errata
from reports.audit import own
from tests.notes_fake_reader import FakeReader

NOTE = ("# Algebra\n\nLet $s = x^2 + 1$. Then $s - 1 = x^2$ but $s = x^2$.\n\n"
        "$$(x+y)^2 = x^2 + 2xy + y^2 = x^2 + y^2$$\n\nand $e^{-1} \\approx 0.36$.\n")


def test_the_drafted_registry_is_read_by_the_audit(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "algebra.md").write_text(NOTE, encoding="utf-8")
    result = check_notes([notes], reader=FakeReader(), cache=None)
    registry = errata.write(result, tmp_path / "draft" / "registry.toml")
    records = own.registry.load(registry).records
    assert [r["id"] for r in records] == ["algebra-line3-link1", "algebra-line5-link2",
                                          "algebra-line7-link1"]
    assert all(r["verdict"] == "error" and r["quote"] in NOTE for r in records)
    assert "x = " in records[1]["reason"]  # the point where the sides differ
    assert "definition s" in records[0]["reason"]  # the definition the failing link used
    _, lines = own.audit(notes, registry, [registry.parent / errata.CLAIMS_FILE])
    # the note's own versions are the evidence: each fails until a correction is written
    assert all("NOT passed" in line for line in lines[:3])


def test_nothing_failed_nothing_drafted(tmp_path):
    (tmp_path / "ok.md").write_text("$s = x^2 + 1$ so $s - 1 = x^2$.", encoding="utf-8")
    result = check_notes([tmp_path / "ok.md"], reader=FakeReader(), cache=None)
    assert errata.write(result, tmp_path / "registry.toml") is None


def test_a_quote_is_verbatim_and_short(tmp_path):
    long = "x" * 80
    text = f"$${long} = y$$"
    from derivations.notes.model import FormulaResult

    f = FormulaResult(0, 2, 2 + len(long) + 4, 1, f"{long} = y", True, "", "failed", "")
    q = errata.quote(text, f)
    assert len(q) <= errata.MAX_QUOTE and q in text
    assert Path(errata.__file__).read_text(encoding="utf-8").count("def record(") == 1
