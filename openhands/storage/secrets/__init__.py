"""User secrets stores."""
