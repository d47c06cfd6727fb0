"""Analyzer names accepted in `[security] security_analyzer` and listed by the server."""

from __future__ import annotations

from openhands.security.analyzer import SecurityAnalyzer
from openhands.security.llm.analyzer import LLMRiskAnalyzer
from openhands.security.rules.analyzer import RuleBasedSecurityAnalyzer

SecurityAnalyzers: dict[str, type[SecurityAnalyzer]] = {
    "llm": LLMRiskAnalyzer,
    "rules": RuleBasedSecurityAnalyzer,
}


def create_security_analyzer(name: str | None) -> SecurityAnalyzer | None:
    """The analyzer configured under ``name``; None for no analyzer.

    An unknown name is an error (the reference silently used a base class that never
    asked for confirmation).
    """
    if not name:
        return None
    try:
        return SecurityAnalyzers[name]()
    except KeyError:
        known = ", ".join(sorted(SecurityAnalyzers))
        raise ValueError(f"Unknown security analyzer {name!r}; known: {known}") from None
