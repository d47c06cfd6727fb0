"""Conversation managers: who runs the agent loops and routes sockets to them."""
