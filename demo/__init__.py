"""Demos of Context Retrieval.

``python -m demo`` (what ``scripts/demo`` runs) starts a real Home Assistant on the bundled
Chinese demo home (``demo/config``, ``demo/layout.yaml``), adds the integration and asks
its ``context_retrieval.retrieve`` service; ``python -m demo.engine`` runs the engine
alone on the SmartThings-shaped demo home, without Home Assistant.
"""
