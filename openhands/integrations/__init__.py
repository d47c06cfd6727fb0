"""Git-provider integrations. For now only the data types the storage layer persists."""
