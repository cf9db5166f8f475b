"""`python -m ragstat` = the `ragstat` command."""

from ragstat._entry import run

run()
