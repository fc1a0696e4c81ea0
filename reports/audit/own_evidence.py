"""The evidence of a record of your registry, as the errata's evidence view shows it.

A reference (:func:`reports.audit.registry.reference`) is run once however many records name
it: ``claim:ID`` is verified (your claim, or a shipped one), ``check:NAME`` called.  Each record
then gets the rows of :mod:`reports.audit.errata.view` — its words, labels and summary are the
project's audit's own: the note's version (``note_version``, or the evidence of a correct
record), the correction (the evidence of an erratum), related claims (``see_also``, each with
its status) and the sources, which carry no pass mark since nothing of them is computed.  A
record whose evidence is a registered function gets exactly the project's rows.
"""

from __future__ import annotations

from reports.audit import registry
from reports.audit.errata import view

# the version a record's evidence stands for, by verdict
EVIDENCE_VERSION = {"correct": "note", "error": "correction", "imprecise": "correction",
                    "reported": "note"}


class AuditError(ValueError):
    """A mistake in the registry, the notes or the files: each line names the record (or file)
    and the field, what was expected and what to do."""

    def __init__(self, *lines: str):
        super().__init__("\n".join(lines))
        self.lines = lines


def _status(status: str) -> dict[str, str]:
    from reports.render import i18n

    return {lang: i18n.ui(lang)["status"][status] for lang in i18n.LANGS}


def claim_result(cid: str, result: dict, shipped: bool) -> dict:
    """A verified claim as evidence: it passes when it is proved."""
    words = _status(result["status"])
    at = result.get("failed_step")
    who = ({"en": "the project's claim", "zh": "本项目的命题"} if shipped
           else {"en": "your claim", "zh": "你的命题"})
    value = {"en": f"{who['en']} {cid}: {words['en']}" + (f" at step {at}" if at else ""),
             "zh": f"{who['zh']} {cid}：{words['zh']}" + (f"，第 {at} 步" if at else "")}
    return {"passed": result["status"] == "proved", "value": value, "claim": cid}


def check_result(name: str, fn, where: str) -> dict:
    """A check of your files, called: it passes when it returns True (or (True, detail)); an
    exception it raises is a failed check, shown with its message."""
    said = {"en": f"your check {name}", "zh": f"你的检查 {name}"}
    try:
        got = fn()
    except Exception as exc:  # noqa: BLE001 - the user's check: a crash is a failed check
        # shown as written: a $ is a dollar, a backtick a quote
        text = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        text = text.replace("$", "\\$").replace("`", "'")
        return {"passed": False, "value": {"en": f"{said['en']} raised {text}",
                                           "zh": f"{said['zh']} 出错：{text}"}}
    passed, detail = (got if isinstance(got, tuple) and len(got) == 2 else (got, None))
    if type(passed).__module__ == "numpy" and type(passed).__name__.startswith("bool"):
        passed = bool(passed)  # a comparison of NumPy values
    if not isinstance(passed, bool):
        raise AuditError(f"{where}: check:{name} returned {type(got).__name__} {got!r:.40}, "
                         "expected a bool or (bool, detail); return e.g. (bool(ok), 'what was "
                         "compared')")
    if detail is None:
        detail = {"en": "holds" if passed else "does not hold",
                  "zh": "成立" if passed else "不成立"}
    elif isinstance(detail, str):
        detail = {"en": detail}
    elif not (isinstance(detail, dict) and isinstance(detail.get("en"), str)
              and all(k in ("en", "zh") and isinstance(v, str) for k, v in detail.items())):
        raise AuditError(f"{where}: check:{name} returned detail {detail!r:.40}, expected a str "
                         "or {'en': str, 'zh': str}")
    value = {"en": f"{said['en']}: {detail['en']}"}
    if "zh" in detail:  # else the Chinese edition shows the English, marked
        value["zh"] = f"{said['zh']}：{detail['zh']}"
    return {"passed": passed, "value": value}


def _row(version: str, rec: dict, result: dict) -> dict:
    return {"version": version, "label": view._version_label(version, rec["verdict"],
                                                             result["passed"]),
            "value": result["value"], "math": "", "passed": result["passed"]}


def _related(cid: str, result: dict, shipped: bool) -> dict:
    """A related claim (``see_also``) by its title and status, as the project's audit shows
    one; your claim's Chinese title where your file gives one."""
    if shipped:
        value = view._derivation_value(cid, result["status"])
    else:
        words = _status(result["status"])
        value = {"en": f"“{result['title']}”: {words['en']}"}
        title_zh = (result.get("zh") or {}).get("title")
        if title_zh:
            value["zh"] = f"「{title_zh}」：{words['zh']}"
    return {"version": "independent", "label": view.LABELS["derivation"], "value": value,
            "math": "", "passed": result["status"] in ("proved", "numeric")}


def _summary(rec: dict, rows: list[dict], tail: dict[str, str]) -> dict[str, str]:
    """The project's summary where the record runs both versions its verdict compares (or
    rests on sources); else a sentence on the one version it ran.  A summary that would quote
    a missing condition you gave in English only is English only (marked in the Chinese
    edition)."""
    verdict = rec["verdict"]
    order = view.ORDER[verdict]
    shown = {r["version"]: r["passed"] for r in rows if r["version"] in order}
    condition = rec.get("missing_condition")
    both = rec["evidence"] is None or set(shown) == set(order)
    expected = rec["evidence"] is None or (
        both and (shown[order[0]], shown[order[1]]) == view.EXPECTED[verdict])
    if both and (verdict != "imprecise" or condition or not expected):
        said = view._summary({**rec, "missing_condition_zh": rec.get("missing_condition_zh")
                              or ""}, rows, tail)
        if verdict == "imprecise" and expected and not rec.get("missing_condition_zh"):
            said = {"en": said["en"]}
        return said
    if rec["evidence"] is None:
        n = len(rec["sources"])
        return {"en": f"Source-based, not computed ({n} source{'s' if n != 1 else ''})"
                      f"{tail['en']}.",
                "zh": f"依据文献，非计算（共 {n} 篇）{tail['zh']}。"}
    if both:  # imprecise, as the verdict expects, with no condition stated
        return {"en": f"The note's version does not hold as stated; the correction holds"
                      f"{tail['en']}.",
                "zh": f"讲义的说法不能照原样成立；更正后的说法成立{tail['zh']}。"}
    version = EVIDENCE_VERSION[verdict]
    passed = shown[version]
    name = view.VERSION_NAMES["note_fix" if verdict == "reported" else version]
    holds = {lang: view.HOLDS[lang][passed] for lang in ("en", "zh")}
    if not passed:
        return {"en": f"Not as the verdict expects: {name['en']} {holds['en']}{tail['en']}.",
                "zh": f"与判定不符：{name['zh']}{holds['zh']}{tail['zh']}。"}
    return {"en": f"{name['en']} {holds['en']}{tail['en']}.",
            "zh": f"{name['zh']}{holds['zh']}{tail['zh']}。"}


def evidence_view(rec: dict, done: dict[str, dict], related: dict[str, tuple[dict, bool]],
                  runs: dict) -> dict:
    """The rows and summary of ``rec``.  ``done``: each reference's result (passed, value);
    ``related``: claim id -> (its verified data, whether shipped); ``runs``: the registered
    functions' runs by (name, version, quoted words), as :func:`view.evidence_runs` gives them."""
    statuses = {cid: data["status"] for cid, (data, _) in related.items()}
    if rec["evidence"] is not None and registry.reference(rec["evidence"])[0] == "function":
        # the project's rows; the related claims, which may be yours, added as below
        shown = view.evidence_view({**rec, "evidence": registry.reference(rec["evidence"])[1],
                                    "claim_latex": rec["claim_latex"] or "", "see_also": [],
                                    "sources": []}, runs, statuses)
        rows = shown["rows"]
    else:
        rows = []
    if rec["note_version"] is not None:
        rows.append(_row("note", rec, done[rec["note_version"]]))
    if rec["evidence"] in done:
        rows.append(_row(EVIDENCE_VERSION[rec["verdict"]], rec, done[rec["evidence"]]))
    if rec["cross_check"] and not any(r["version"] == "independent" for r in rows):
        from reports.audit import evidence

        other = runs[(rec["cross_check"], evidence.CHECKS[rec["cross_check"]].right)]
        rows.append({"version": "independent", "label": view.LABELS["check"],
                     "value": view.value(other), "math": "", "passed": other["passed"]})
    for cid in rec["see_also"]:
        data, shipped = related[cid]
        rows.append(_related(cid, data, shipped))
    if rec["sources"]:
        rows.append({"version": "cited",
                     "label": view.LABELS["cited" if rec["evidence"] is None else "sources"],
                     "value": view.citations(rec["sources"]), "math": "", "passed": None})
    indep = [r for r in rows if r["version"] == "independent"]
    ok = sum(r["passed"] for r in indep)
    tail = {"en": f"; {ok} of {len(indep)} independent checks pass" if indep else "",
            "zh": f"；独立核验 {len(indep)} 项中 {ok} 项通过" if indep else ""}
    return {"rows": rows, "summary": _summary(rec, rows, tail)}
