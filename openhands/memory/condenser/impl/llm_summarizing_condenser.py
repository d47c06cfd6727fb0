"""``llm``: replace the middle of the history with a summary written by an LLM."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openhands.core.config.condenser_config import LLMSummarizingCondenserConfig
from openhands.core.message import Message, TextContent
from openhands.memory.condenser.condenser import Condensation, Condenser, RollingCondenser
from openhands.memory.condenser.impl._llm import condenser_llm
from openhands.memory.condenser.impl._summary_selection import select_for_summary
from openhands.memory.condenser.impl._window import check_window, forget_range
from openhands.memory.truncation import truncate_content
from openhands.memory.view import View

if TYPE_CHECKING:
    from openhands.llm.llm import LLM

SUMMARY_INSTRUCTIONS = """\
You keep the working memory of a software agent. Part of its history is about to be \
dropped from its context. Rewrite the previous summary together with the events below \
into one updated summary that lets the agent carry on without the dropped events.

Use these sections and keep each one short and factual:

USER_CONTEXT: what the user wants, their constraints and preferences
TASK_TRACKING: the agent's task list, if it keeps one - copy every task id and status \
exactly as they were last set
COMPLETED: work that is done, with the results that matter
PENDING: work that is still to do
CURRENT_STATE: where the agent stands right now (open files, running processes, \
variables worth remembering)

For coding work, add:
CODE_STATE: files, functions and signatures that were touched or matter
TESTS: tests written, and which pass or fail (with the failure message)
CHANGES: the edits made so far
DEPS: dependencies installed or required
VERSION_CONTROL_STATUS: branch, commits, pull request state

Drop details that no longer matter; keep names, paths, ids, numbers and error \
messages exactly as they appear."""


def build_summary_prompt(previous_summary: str, events: list[Any], max_event_length: int) -> str:
    parts = [
        SUMMARY_INSTRUCTIONS,
        "",
        f"<PREVIOUS SUMMARY>\n{truncate_content(previous_summary, max_event_length)}\n"
        "</PREVIOUS SUMMARY>",
        "",
    ]
    for event in events:
        text = truncate_content(str(event), max_event_length)
        parts.append(f"<EVENT id={event.id}>\n{text}\n</EVENT>")
    parts.append("")
    parts.append("Write the updated summary now, following the sections above.")
    return "\n".join(parts)


@Condenser.register(LLMSummarizingCondenserConfig)
class LLMSummarizingCondenser(RollingCondenser):
    def __init__(
        self,
        llm: LLM,
        max_size: int = 100,
        keep_first: int = 1,
        max_event_length: int = 10_000,
    ) -> None:
        super().__init__()
        check_window(keep_first, max_size)
        self.llm = llm
        self.max_size = max_size
        self.keep_first = keep_first
        self.max_event_length = max_event_length

    def should_condense(self, view: View) -> bool:
        return len(view) > self.max_size or view.unhandled_condensation_request

    def get_condensation(self, view: View) -> Condensation:
        selection = select_for_summary(view, self.keep_first, self.max_size)
        prompt = build_summary_prompt(
            selection.previous_summary, selection.forgotten, self.max_event_length
        )
        response = self.llm.completion(
            messages=[Message(role="user", content=[TextContent(text=prompt)])],
            extra_body={"metadata": self.llm_metadata},
        )
        summary = response.choices[0].message.content or ""  # type: ignore[union-attr]
        self.add_metadata("response", response.model_dump())
        self.add_metadata("metrics", self.llm.metrics.get())
        action = forget_range(
            (event.id for event in selection.forgotten),
            summary=summary,
            summary_offset=self.keep_first,
        )
        return Condensation(action=action)

    @classmethod
    def build(cls, config: Any, llm_registry: Any) -> LLMSummarizingCondenser:
        return cls(
            llm=condenser_llm(config, llm_registry),
            max_size=config.max_size,
            keep_first=config.keep_first,
            max_event_length=config.max_event_length,
        )
