"""Settings stores."""
