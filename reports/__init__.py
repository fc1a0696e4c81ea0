"""The report: the pipeline that collects the data (:mod:`reports.pipeline`), what each edition
shows (:mod:`reports.view`), how it is written out as HTML, LaTeX and PDF (:mod:`reports.render`)
and the audit of the lecture notes (:mod:`reports.audit`).  ``python -m reports build`` runs
it."""
