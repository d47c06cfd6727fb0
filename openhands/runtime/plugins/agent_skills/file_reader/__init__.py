"""Document readers of the ``agent_skills`` plugin (the reference's module path)."""
