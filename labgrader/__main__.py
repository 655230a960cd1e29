"""``python -m labgrader …``: the same as the ``labgrader`` command."""
import sys

from . import main

sys.exit(main())
