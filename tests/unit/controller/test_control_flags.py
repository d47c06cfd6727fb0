from __future__ import annotations

import pytest

from openhands.controller.state.control_flags import BudgetControlFlag, IterationControlFlag


def test_iteration_flag_counts_then_raises_without_counting() -> None:
    flag = IterationControlFlag(limit_increase_amount=2, current_value=0, max_value=2)
    flag.step()
    flag.step()
    assert flag.current_value == 2
    with pytest.raises(RuntimeError) as info:
        flag.step()
    assert (
        str(info.value) == "Agent reached maximum iteration. Current iteration: 2, max iteration: 2"
    )
    assert flag.current_value == 2


def test_iteration_flag_extends_only_when_interactive_and_after_hitting_the_limit() -> None:
    flag = IterationControlFlag(limit_increase_amount=5, current_value=5, max_value=5)
    flag.increase_limit(headless_mode=False)
    assert flag.max_value == 5  # the limit was never hit
    assert flag.reached_limit()
    flag.increase_limit(headless_mode=True)
    assert flag.max_value == 5  # headless: no more iterations
    flag.increase_limit(headless_mode=False)
    assert flag.max_value == 10
    flag.step()
    assert flag.current_value == 6


def test_budget_flag_message_and_extension() -> None:
    flag = BudgetControlFlag(limit_increase_amount=1.0, current_value=0.0, max_value=1.0)
    flag.step()
    flag.current_value = 1.234
    with pytest.raises(RuntimeError) as info:
        flag.step()
    assert str(info.value) == (
        "Agent reached maximum budget for conversation.Current budget: 1.23, max budget: 1.00"
    )
    flag.increase_limit(headless_mode=True)  # budgets extend in both modes
    assert flag.max_value == pytest.approx(2.234)
    flag.step()


def test_flags_round_trip_as_dicts() -> None:
    flag = IterationControlFlag(
        limit_increase_amount=3, current_value=2, max_value=9, _hit_limit=True
    )
    assert IterationControlFlag.from_dict(flag.to_dict()) == flag
    budget = BudgetControlFlag(limit_increase_amount=1.5, current_value=0.25, max_value=4.0)
    assert BudgetControlFlag.from_dict(budget.to_dict()) == budget
