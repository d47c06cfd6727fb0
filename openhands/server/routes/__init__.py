"""HTTP routers. Each route parses, calls a service and returns a typed model."""
