"""Compatibility check: the integration in real Home Assistant processes of each supported version.

``scripts/compat`` (and ``scripts/test``, after the test suite) starts every Home Assistant
given (2026.10.4 from the project's environment, 2026.11.0 from the second one) on a small
Chinese-named home, adds Context Retrieval and Home Assistant's Ollama agent (against a local
fake Ollama server) through their config flows, holds one conversation in each setup and
checks what every model request of every turn held (``compat.turns``).
"""
