"""The Slack assistant that learns from its users' reactions; ``python -m bot`` runs it."""
