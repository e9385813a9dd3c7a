"""The package's public names: sorted, importable, and each module declares ``__all__``."""

from __future__ import annotations

import importlib
import pkgutil

import bot.agent


def test_the_package_exports_a_sorted_importable_all() -> None:
    assert bot.agent.__all__ == sorted(bot.agent.__all__, key=lambda n: (not n.isupper(), n))
    for name in bot.agent.__all__:
        assert getattr(bot.agent, name) is not None


def test_every_module_declares_all() -> None:
    for module_info in pkgutil.walk_packages(bot.agent.__path__, "bot.agent."):
        module = importlib.import_module(module_info.name)
        assert isinstance(getattr(module, "__all__", None), list), module_info.name
