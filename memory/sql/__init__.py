"""Memory's verbs written once for both databases, as async functions of a :class:`Session`
(memory/README.md, *One verb, two databases*); and the released SQL of a backend's migrations."""

from importlib.resources import files


def released_sql(package: str) -> dict[str, str]:
    """The SQL of each ``.sql`` file of ``package`` (a backend's migrations), by the file's
    name without ``.sql``, in the names' order: the order the migrations apply."""
    found = [file for file in files(package).iterdir() if file.name.endswith(".sql")]
    return {
        file.name.removesuffix(".sql"): file.read_text(encoding="utf-8")
        for file in sorted(found, key=lambda file: file.name)
    }
