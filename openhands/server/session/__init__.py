"""One running conversation: the web Session (sockets) and its AgentSession (agent stack)."""
