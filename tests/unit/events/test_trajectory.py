"""``event_to_trajectory``: event_to_dict minus browser internals in ``extras`` (events.md §3.7)."""

from __future__ import annotations

from openhands.events.action import MCPAction
from openhands.events.observation import BrowserOutputObservation, MCPObservation
from openhands.events.serialization import event_to_dict, event_to_trajectory

INTERNALS = {
    "dom_object",
    "axtree_object",
    "active_page_index",
    "last_browser_action",
    "last_browser_action_error",
    "focused_element_bid",
    "extra_element_properties",
}


def _browser() -> BrowserOutputObservation:
    obs = BrowserOutputObservation(
        "Example Domain",
        url="https://example.org",
        trigger_by_action="browse_interactive",
        screenshot="data:image/png;base64,AAAA",
        screenshot_path="/tmp/shot.png",
        set_of_marks="data:image/png;base64,BBBB",
        error=False,
        goal_image_urls=["g.png"],
        open_pages_urls=["https://example.org"],
        active_page_index=0,
        dom_object={"1": {"tag": "a"}},
        axtree_object={"nodes": [1]},
        extra_element_properties={"1": {"visible": True}},
        last_browser_action="click('1')",
        last_browser_action_error="",
        focused_element_bid="1",
        filter_visible_only=True,
    )
    obs.id = 9
    obs.timestamp = "2025-01-15T10:00:09"
    obs.source = "agent"
    obs.cause = 8
    return obs


def test_browser_internals_and_screenshots_are_dropped() -> None:
    obs = _browser()
    full = event_to_dict(obs)
    trajectory = event_to_trajectory(obs)
    assert trajectory["extras"] == {
        "url": "https://example.org",
        "trigger_by_action": "browse_interactive",
        "screenshot_path": "/tmp/shot.png",
        "error": False,
        "goal_image_urls": ["g.png"],
        "open_pages_urls": ["https://example.org"],
        "filter_visible_only": True,
    }
    # Everything outside extras is event_to_dict's, unchanged.
    assert {k: v for k, v in trajectory.items() if k != "extras"} == {
        k: v for k, v in full.items() if k != "extras"
    }
    # The event itself keeps everything.
    assert event_to_dict(obs) == full and obs.dom_object == {"1": {"tag": "a"}}


def test_screenshots_kept_on_request() -> None:
    extras = event_to_trajectory(_browser(), include_screenshots=True)["extras"]
    assert extras["screenshot"] == "data:image/png;base64,AAAA"
    assert extras["set_of_marks"] == "data:image/png;base64,BBBB"
    assert INTERNALS.isdisjoint(extras)


def test_keys_are_removed_at_any_depth_of_extras() -> None:
    obs = MCPObservation(
        "{}",
        name="browser_tool",
        arguments={
            "screenshot": "x",
            "page": {"dom_object": {}, "title": "t", "tabs": [{"axtree_object": 1, "id": 2}]},
        },
    )
    assert event_to_trajectory(obs)["extras"] == {
        "name": "browser_tool",
        "arguments": {"page": {"title": "t", "tabs": [{"id": 2}]}},
    }
    kept = event_to_trajectory(obs, include_screenshots=True)["extras"]["arguments"]
    assert kept["screenshot"] == "x" and "dom_object" not in kept["page"]


def test_actions_are_left_as_event_to_dict_writes_them() -> None:
    # Only ``extras`` is filtered; ``args`` may legitimately hold these names.
    action = MCPAction("browser_tool", arguments={"screenshot": True, "dom_object": {}})
    assert event_to_trajectory(action) == event_to_dict(action)
    assert event_to_trajectory(action)["args"]["arguments"] == {
        "screenshot": True,
        "dom_object": {},
    }
