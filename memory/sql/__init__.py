"""Memory's verbs written once for both databases, as async functions of a :class:`Session`
(memory/README.md, *One verb, two databases*)."""
