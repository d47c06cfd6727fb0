"""Typed models of everything the server sends or receives (REST bodies, socket payloads)."""
