"""Memory's verbs written once for both databases, as async functions of a :class:`Session`.
Their SQL (PostgreSQL's ``%s`` markers) runs unchanged on both: SQLite's session runs the
coroutine to its end on the database thread, since nothing in it ever waits. What differs
per database (a marker, how a time is stored, the fence's locks) is a method of the session.
"""
