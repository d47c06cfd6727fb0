"""Test helpers that run real code paths: the scripted OpenAI-compatible LLM server and fixtures."""
