"""Context Retrieval: give an LLM assistant only the devices and commands an utterance needs.

The engine (``core``) runs without Home Assistant (CONTRACT §2), so the integration's
set-up is only loaded where Home Assistant is installed.
"""

from __future__ import annotations

try:
    import homeassistant  # noqa: F401
except ImportError:  # the engine used on its own
    pass
else:
    from .integration import CONFIG_SCHEMA, async_setup, async_setup_entry, async_unload_entry

    __all__ = ["CONFIG_SCHEMA", "async_setup", "async_setup_entry", "async_unload_entry"]
