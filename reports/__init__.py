"""The report: the pipeline that collects the data (:mod:`reports.pipeline`), what each edition
shows (:mod:`reports.view`), how it is written out as HTML, LaTeX and PDF (:mod:`reports.render`),
the audit of the lecture notes (:mod:`reports.audit`) and the checked display forms
(:mod:`reports.forms`).  ``python -m reports build`` runs it."""
