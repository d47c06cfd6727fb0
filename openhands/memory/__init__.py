"""What the agent remembers: the history as LLM messages, condensation, and recall.

Import the modules directly (this package imports nothing, so the controller can use
``view`` without pulling in the rest). See README.md for the module list.
"""
