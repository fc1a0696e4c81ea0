"""The audit of the lecture notes: the errata registry, the evidence behind each record, and the
notes' coverage. Everything here computes; ``reports.render`` only formats what it returns."""
