from openhands.security.llm.analyzer import LLMRiskAnalyzer

__all__ = ["LLMRiskAnalyzer"]
