"""How long a listener may wait for the store before Slack hears back."""

STORE_WITHIN_SECONDS = 2.0
"""Slack waits 3 s for an acknowledgement. What a listener stores or reads before it (a vote,
a question, a reason, an erasure, the /memory list) gets 2 s of them, the rest left to Bolt's
authorization and the network; past it the listener answers as each module says (a 503, a
reply that the result follows, a form left open)."""
