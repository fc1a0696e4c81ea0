"""What every command-line entry point shares: a usage error is one line on stderr and exit 2."""

from __future__ import annotations

import argparse


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line, ``prog: error: message``, and exit 2 — instead of
    the usage text plus the message."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")

