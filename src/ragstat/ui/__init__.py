"""A local, read-only web view over the run registry and the runs' reports (`ragstat ui`).

Needs the ``ui`` extra (Starlette and uvicorn): ``pip install "ragstat[ui]"``.
"""

from ragstat.ui.app import create_app

__all__ = ["create_app"]
