"""The student edition built from the recorded claim results (tests/fixtures/), as the tests of
its view, words and text read it: one place for the data the three files share."""

from __future__ import annotations

import json
from pathlib import Path

from reports.render import i18n
from reports.view import student

FIXTURE = Path(__file__).parent / "fixtures" / "student_claims.json"
FIGURES = [{"name": n} for n in ("variance_vs_dk", "saturation", "depth_gradnorm",
                                 "training_loss", "adam_moments")]
META = {"date": "2026-12-01", "version": "0"}


def edition_data(audit: dict) -> dict:
    """The report's data with the recorded claims and the audit's records, no plots."""
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return {**fixture, "plot_data": {}, "training": {"steps": [], "loss": []},
            "errata": {"records": audit["records"], "summary": {}}}


def edition_views(data: dict) -> dict:
    """The edition's view in each language."""
    return {lang: student.build_view(data, FIGURES, lang, META) for lang in i18n.LANGS}


def parts(view: dict, kind: str) -> list:
    """The view's parts of one kind (claim, box, figure …) in reading order."""
    return [it for t in view["topics"] for it in t["parts"] if it["type"] == kind]
