"""The Socket.IO packet codec: the same JSON as the standard library, faster."""

from __future__ import annotations

import json

import pytest
import socketio

from openhands.server import socket_json


def test_round_trip_and_compatibility() -> None:
    payload = {"id": 7, "message": "héllo ✓", "extras": {"n": [1, 2.5, None, True]}, 3: "k"}
    text = socket_json.dumps(payload, separators=(",", ":"))
    assert isinstance(text, str)
    assert json.loads(text) == json.loads(json.dumps(payload))
    assert socket_json.loads(text) == json.loads(text)


def test_what_orjson_refuses_falls_back_to_json() -> None:
    huge = {"n": 2**80}
    assert json.loads(socket_json.dumps(huge)) == huge


def test_decode_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        socket_json.loads("{not json")


def test_packets_encode_with_it() -> None:
    server = socketio.AsyncServer(async_mode="asgi", json=socket_json)
    packet = server.packet_class(socketio.packet.EVENT, namespace="/", data=["oh_event", {"a": 1}])
    assert packet.encode() == '2["oh_event",{"a":1}]'
