"""The per-link cache: a rerun checks nothing again; an edit re-checks only what it affects."""

from __future__ import annotations

from derivations.notes import check_notes, claims
from tests.notes_fake_reader import FakeReader

NOTE = ("# A\n\nLet $s = x^2 + 1$. Then $s - 1 = x^2$.\n\n"
        "$$(x+y)^2 = x^2 + 2xy + y^2$$\n")


def _counting(monkeypatch):
    calls = []
    real = claims._check_link

    def counted(*args):
        calls.append(args[2])
        return real(*args)

    monkeypatch.setattr(claims, "_check_link", counted)
    return calls


def test_rerun_and_edits(tmp_path, monkeypatch):
    calls = _counting(monkeypatch)
    note = tmp_path / "a.md"
    note.write_text(NOTE, encoding="utf-8")
    cache = tmp_path / "cache"
    first = check_notes([note], reader=FakeReader(), cache=cache)
    assert len(calls) == 2
    again = check_notes([note], reader=FakeReader(), cache=cache)
    assert len(calls) == 2  # nothing re-checked
    assert [f.to_dict() for f in again.formulas] == [f.to_dict() for f in first.formulas]
    # editing the definition re-checks the formula that uses it, not the independent one
    note.write_text(NOTE.replace("s = x^2 + 1", "s = x^2 + 2"), encoding="utf-8")
    edited = check_notes([note], reader=FakeReader(), cache=cache)
    assert len(calls) == 3
    assert edited.formulas[1].verdict == "failed"  # s - 1 = x^2 no longer holds


def test_no_cache_checks_everything(tmp_path, monkeypatch):
    calls = _counting(monkeypatch)
    note = tmp_path / "a.md"
    note.write_text(NOTE, encoding="utf-8")
    check_notes([note], reader=FakeReader(), cache=None)
    check_notes([note], reader=FakeReader(), cache=None)
    assert len(calls) == 4
