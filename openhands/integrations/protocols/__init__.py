"""Interfaces the provider services share (``http_client.HTTPClient``)."""
