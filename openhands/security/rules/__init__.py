from openhands.security.rules.analyzer import RuleBasedSecurityAnalyzer

__all__ = ["RuleBasedSecurityAnalyzer"]
