"""Clients of outside services, one module per service."""
