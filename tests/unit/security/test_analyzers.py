"""The analyzer seam, the LLM analyzer and the name registry."""

from __future__ import annotations

import asyncio

import pytest

from openhands.events.action import ActionSecurityRisk, AgentFinishAction, CmdRunAction
from openhands.security import SecurityAnalyzer, SecurityAnalyzers, create_security_analyzer
from openhands.security.llm.analyzer import LLMRiskAnalyzer, risk_from_llm
from openhands.security.rules.analyzer import RuleBasedSecurityAnalyzer


@pytest.mark.parametrize(
    ("value", "risk"),
    [
        (ActionSecurityRisk.HIGH, ActionSecurityRisk.HIGH),
        (0, ActionSecurityRisk.LOW),
        (1, ActionSecurityRisk.MEDIUM),
        (2, ActionSecurityRisk.HIGH),
        (-1, ActionSecurityRisk.UNKNOWN),
        (7, ActionSecurityRisk.UNKNOWN),
        ("high", ActionSecurityRisk.HIGH),
        (" Medium ", ActionSecurityRisk.MEDIUM),
        ("dangerous", ActionSecurityRisk.UNKNOWN),
        (True, ActionSecurityRisk.UNKNOWN),
        (None, ActionSecurityRisk.UNKNOWN),
    ],
)
def test_llm_risk_values(value: object, risk: ActionSecurityRisk) -> None:
    assert risk_from_llm(value) == risk


def test_llm_analyzer_reads_the_actions_field() -> None:
    action = CmdRunAction("rm -rf /")
    action.security_risk = ActionSecurityRisk.LOW
    analyzer = LLMRiskAnalyzer()
    assert asyncio.run(analyzer.security_risk(action)) == ActionSecurityRisk.LOW
    # Actions without the field are unknown.
    assert asyncio.run(analyzer.security_risk(AgentFinishAction())) == ActionSecurityRisk.UNKNOWN


def test_registry_lists_llm_and_rules() -> None:
    assert SecurityAnalyzers == {"llm": LLMRiskAnalyzer, "rules": RuleBasedSecurityAnalyzer}
    assert isinstance(create_security_analyzer("rules"), RuleBasedSecurityAnalyzer)
    assert create_security_analyzer(None) is None
    assert create_security_analyzer("") is None
    with pytest.raises(ValueError, match="invariant"):
        create_security_analyzer("invariant")


def test_base_class_defaults() -> None:
    analyzer = RuleBasedSecurityAnalyzer()  # keeps the base class's API request default
    assert isinstance(analyzer, SecurityAnalyzer)
    with pytest.raises(NotImplementedError):
        asyncio.run(analyzer.handle_api_request(object()))
    llm = LLMRiskAnalyzer()
    assert asyncio.run(llm.handle_api_request(object())) == {"status": "ok", "analyzer": "llm"}
    assert asyncio.run(analyzer.close()) is None
    with pytest.raises(TypeError):
        SecurityAnalyzer()  # type: ignore[abstract]
