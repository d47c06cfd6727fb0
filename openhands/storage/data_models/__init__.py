"""Persisted data models: conversation metadata, settings and user secrets."""
