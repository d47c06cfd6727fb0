"""The BrowsingAgent's prompts: the goal and action space, then the page and history."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools.browser import BROWSER_FUNCTIONS

SEND_MSG_SIGNATURE = (
    "send_msg_to_user(text: str)",
    "Send a message to the user (use it to give the final answer).",
    "send_msg_to_user('The cheapest flight costs $120.')",
)


def action_space() -> str:
    lines = []
    for signature, summary, example in (*BROWSER_FUNCTIONS, SEND_MSG_SIGNATURE):
        lines.append(f"{signature}\n    {summary}\n    Example: {example}")
    return "\n\n".join(lines)


def system_message(goal: str) -> str:
    return f"""\
# Instructions
You control a web browser to reach a goal for the user. At each step you see the \
current page as an accessibility tree and choose one next action. When the goal is \
reached, or cannot be reached, answer the user with send_msg_to_user.

# Goal
{goal}

# Action space
{action_space()}

# Answer format
Explain your reasoning briefly, then give exactly one action in a fenced code block, e.g.
In order to search, I type the query into the search box.
```fill('a12', 'openhands')```"""


def user_message(error_prefix: str, url: str, axtree: str, previous_actions: str) -> str:
    parts = []
    if error_prefix:
        parts.append(error_prefix)
    parts.append(f"# Current page\nURL: {url or '(none)'}\n\n## Accessibility tree\n{axtree}")
    parts.append(f"# Previous actions\n{previous_actions or '(none)'}")
    parts.append("# Next action\nThink step by step, then give the action.")
    return "\n\n".join(parts)


def error_prefix(last_action: str) -> str:
    return (
        "# Error\nThe previous action failed:\n"
        f"{last_action}\nCheck the page and try a different action."
    )
