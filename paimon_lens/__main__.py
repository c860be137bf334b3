"""``python -m paimon_lens`` runs the command line."""

import sys

from .presentation.cli import run

sys.exit(run())
