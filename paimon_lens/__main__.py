"""``python -m paimon_lens`` runs the command line."""

import sys

from .presentation.cli import main

sys.exit(main())
