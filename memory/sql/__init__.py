"""Memory's verbs written once for both databases, as async functions of a :class:`Session`.

Their SQL is PostgreSQL's (``%s`` markers) and runs unchanged on both: PostgreSQL's session
awaits psycopg on the event loop; SQLite's (:mod:`memory.sqlite.session`) runs the same
coroutine to its end on the database thread, since nothing in it ever waits. What differs
per database (a marker, how a time is stored, the fence's locks) is a method of the session.
"""
