"""The one kind of request the learning adapters make: instructions, one prompt, one reply."""

from __future__ import annotations

from bot.agent.messages import CompletionRequest, Message
from bot.agent.provider import Provider

__all__ = ["ask"]


async def ask(
    provider: Provider, *, instructions: str, prompt: str, max_tokens: int, temperature: float
) -> str:
    """The model's reply text; raises whatever the provider raises when the model fails."""
    completion = await provider.complete(
        CompletionRequest(
            messages=[Message.system(instructions), Message.user(prompt)],
            max_tokens=max_tokens,
            temperature=temperature,
        )
    )
    return completion.content
