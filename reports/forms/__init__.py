"""The display forms: hand-written readable forms of some claims, each checked against the
engine before it is shown."""
