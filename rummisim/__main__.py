"""``python -m rummisim`` runs the command line."""

import sys

from rummisim.cli import main

sys.exit(main())
