"""The pipeline of ``make reports``: the data stages and their cache (derive, crosscheck,
training, the audit's evidence, errata), the readers' own claims, and the build that
renders both editions and swaps them in."""
