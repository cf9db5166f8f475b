"""`python -m ragstat` = the `ragstat` command."""

import sys

from ragstat.cli import main

sys.exit(main())
