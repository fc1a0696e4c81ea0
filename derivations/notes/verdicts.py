"""A formula's verdict words and marks: one vocabulary for the terminal, ``--json`` and the
annotated page (what each means: :mod:`derivations.notes.model`)."""

# the engine's status words (derivations.engine.status.STATUSES, asserted equal by the tests),
# written out so that a cached report can show a note's verdicts without importing the engine
STATUSES = ("proved", "numeric", "timed out", "failed")
# a formula's status is the worst of its links', as a claim's is of its steps' (the engine's
# order: more budget might prove a timed-out link, not a numeric one)
RANK = {"proved": 0, "timed out": 1, "numeric": 2, "failed": 3}


def worst(statuses) -> str:
    return max(statuses, key=RANK.__getitem__, default="proved")


DEFINITION, NOT_CHECKABLE, NOT_UNDERSTOOD = "definition", "not checkable", "not understood"
VERDICTS = (*STATUSES, DEFINITION, NOT_CHECKABLE, NOT_UNDERSTOOD)
# the mark beside a formula on the page and in the terminal
MARKS = {"proved": "✔", "numeric": "≈", "timed out": "⧖", "failed": "✘", DEFINITION: "·",
         NOT_CHECKABLE: "·", NOT_UNDERSTOOD: "?"}
APPROX_MARK = "≈"  # a proved ≈: the exact value rounds to the digits shown
