"""Play online: the web app (``triage serve``), its storage and its load benchmark.

Needs the ``web`` extra: ``pip install -e '.[web]'``.
"""

#: Where ``triage serve`` stores its tables unless ``--db`` says otherwise: a SQLite file here.
DEFAULT_DB_URL = "sqlite:///triage-web.db"
