"""Play online: the web app (``triage serve``), its storage and its load benchmark.

Needs the ``web`` extra: ``pip install -e '.[web]'``.
"""

#: Where ``triage serve`` stores its tables unless ``--db`` says otherwise: a SQLite file here.
DEFAULT_DB_URL = "sqlite:///triage-web.db"

#: Default request rates per client address (``limits`` notation: "N/second", "N/minute", ...;
#: ";" joins several), changed with ``triage serve --rate-create/--rate-act``.
DEFAULT_CREATE_RATE = "20/minute"
DEFAULT_ACT_RATE = "30/second"

#: Where the rate limits are counted unless ``triage serve --limits-storage`` says otherwise: this
#: process's memory (``redis://host:port`` shares them between server processes).
DEFAULT_LIMITS_STORAGE = "memory://"

#: Seconds a client has to send a request's headers, and then its body, before the server answers
#: 408 and closes the connection (``triage serve --header-timeout/--body-timeout``).
DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 20.0

#: Spectators' records and WebSocket hellos (whole games, without a token) per client address.
DEFAULT_WATCH_RATE = "60/minute"

#: Hints (the ``expert``'s suggested move) one seat may ask for: each costs a search.
DEFAULT_HINT_RATE = "12/minute"

#: Chat lines and reactions one seat may post: a burst of 5, then one every 2 seconds on average.
DEFAULT_CHAT_RATE = "5/10seconds"
