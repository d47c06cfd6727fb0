"""Business logic behind the routes: conversations, settings, git providers, files, feedback."""
