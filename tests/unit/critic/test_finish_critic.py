"""``openhands.critic``: the rule-based critic that evaluation harnesses retry with."""

from __future__ import annotations

import pytest

from openhands.critic import AgentFinishedCritic, BaseCritic, CriticResult
from openhands.events.action import AgentFinishAction, CmdRunAction, MessageAction
from openhands.events.event import Event
from openhands.events.observation import CmdOutputObservation

FINISHED: list[Event] = [
    MessageAction("fix the bug"),
    CmdRunAction("pytest"),
    AgentFinishAction(final_thought="fixed"),
    # Observations after the last action do not change what the last action was.
    CmdOutputObservation("ok", command="pytest", exit_code=0),
]
GAVE_UP: list[Event] = [MessageAction("fix the bug"), CmdRunAction("pytest")]


@pytest.mark.parametrize(
    ("events", "patch", "score", "message"),
    [
        (FINISHED, None, 1, "Agent finished."),
        (FINISHED, "diff --git a/x b/x\n", 1, "Agent finished."),
        (FINISHED, " \n", 0, "Git patch is empty."),
        (GAVE_UP, None, 0, "Agent did not finish."),
        ([], None, 0, "Agent did not finish."),
    ],
)
def test_agent_finished_critic(
    events: list[Event], patch: str | None, score: float, message: str
) -> None:
    result = AgentFinishedCritic().evaluate(events, patch)

    assert (result.score, result.message) == (score, message)
    assert result.success is (score == 1)


def test_a_result_succeeds_from_half_a_point() -> None:
    assert CriticResult(score=0.5, message="").success
    assert not CriticResult(score=0.49, message="").success


def test_the_base_critic_cannot_be_used_without_evaluate() -> None:
    with pytest.raises(TypeError):
        BaseCritic()  # type: ignore[abstract]
