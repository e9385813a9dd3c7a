"""Why PostgreSQL could not be used, said as what to fix: the server, the database or the role.

A connection that fails carries no SQLSTATE in psycopg (libpq reports it as text only), so
the common cases are told apart by libpq's and the server's words; an error raised once
connected (creating the tables, say) carries its SQLSTATE, which is looked at first. The
error's text is only matched, never repeated: it names hosts, databases and roles, and may
quote a row.
"""

from __future__ import annotations

import psycopg

_BY_SQLSTATE = {
    "3D000": "database",  # invalid_catalog_name
    "28P01": "password",  # invalid_password
    "28000": "role",  # invalid_authorization_specification
    "42501": "privilege",  # insufficient_privilege
    "53300": "crowded",  # too_many_connections
    "57P03": "starting",  # cannot_connect_now
}
_BY_TEXT = (
    ("database", ('database "', '" does not exist')),
    ("password", ("password authentication failed",)),
    ("no_password", ("no password supplied",)),
    ("hba", ("no pg_hba.conf entry",)),
    ("role", ('role "', '" does not exist')),
    ("refused", ("Connection refused",)),
    ("host", ("failed to resolve host",)),
    ("host", ("could not translate host name",)),
    ("timeout", ("timeout expired",)),
    ("crowded", ("too many clients",)),
    ("starting", ("the database system is starting up",)),
)
_PROBLEMS = {
    "refused": (
        "the PostgreSQL server refused the connection: is it running, and listening at "
        "the URL's host and port?"
    ),
    "host": "the PostgreSQL URL's host name does not resolve: check the host",
    "timeout": (
        "the PostgreSQL server did not answer in time: check the URL's host and port, and firewalls"
    ),
    "database": (
        "the PostgreSQL server has no such database: create it (createdb NAME), or fix "
        "the database name in the URL"
    ),
    "role": (
        "the PostgreSQL server has no such role: create it (createuser NAME), or fix the URL's user"
    ),
    "password": (
        "the PostgreSQL server refused the role's password: check it (PGPASSWORD, or the "
        "URL's, percent-encoded)"
    ),
    "no_password": (
        "the PostgreSQL server wants a password and none was given: set PGPASSWORD (or "
        "put it, percent-encoded, in the URL)"
    ),
    "hba": (
        "the PostgreSQL server's pg_hba.conf does not let this role connect from this "
        "host to this database: add an entry for it"
    ),
    "privilege": (
        "the PostgreSQL role may not create or use the bot's tables: grant it CREATE on "
        "the schema, or connect as the database's owner"
    ),
    "crowded": (
        "the PostgreSQL server has no connection left (too many clients): raise its max_connections"
    ),
    "starting": "the PostgreSQL server is starting up or shutting down: try again shortly",
}


def connect_problem(error: psycopg.Error) -> str:
    """What went wrong and what to do, in one clause, without the error's own text."""
    kind = _BY_SQLSTATE.get(error.sqlstate or "")
    if kind is None or kind == "role":  # 28000 is a missing role and pg_hba.conf alike
        text = str(error)
        kind = next(
            (found for found, words in _BY_TEXT if all(word in text for word in words)), kind
        )
    if kind is None:
        state = f", SQLSTATE {error.sqlstate}" if error.sqlstate else ""
        return f"the PostgreSQL database failed ({type(error).__name__}{state})"
    return _PROBLEMS[kind]
