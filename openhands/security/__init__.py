from openhands.security.analyzer import SecurityAnalyzer
from openhands.security.options import SecurityAnalyzers, create_security_analyzer

__all__ = ["SecurityAnalyzer", "SecurityAnalyzers", "create_security_analyzer"]
