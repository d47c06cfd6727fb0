"""Conversation metadata stores."""
