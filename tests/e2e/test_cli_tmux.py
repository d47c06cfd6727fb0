"""Acceptance of the terminal app: the real ``openhands`` command, driven in tmux.

Each test is one user journey at a real terminal (a 160x50 tmux pane): keys are sent with
``tmux send-keys`` and the test reads what a user would see with ``tmux capture-pane``
(``tests/support/tmux_terminal.py``). The contract is ``cli.md`` (§16 is its checklist); the
section a check comes from is named next to it. Our departures from the reference: no
deprecation banner anywhere, and ``--conversation ID`` resumes ID before and after ``cli``.

Every test gets a fresh ``HOME`` (so ``~/.openhands`` is new), a temporary git repository as
the working directory (the CLIRuntime works in it, on this machine) and its own scripted
OpenAI-compatible LLM (``tests/support/scripted_llm.py``) that plays the agent. The agent's
moves are chosen by what the user typed (see :func:`scripted_cli_agent`), so a journey reads
as the conversation a user would have. Only the first journey walks through the first-run
settings flow; the others start from the files that flow writes (§3), to stay short.

The final screen of every terminal goes to ``test-artifacts/cli-tmux/`` for debugging.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import openhands
from tests.support.scripted_llm import (
    DEFAULT_MODEL,
    RecordedRequest,
    ScriptedLLMServer,
    ScriptItem,
    auth_error,
    text,
    tool_call,
)
from tests.support.tmux_terminal import Found, Menu, Pattern, TmuxTerminal

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "test-artifacts" / "cli-tmux"
VENV_BIN = REPO_ROOT / ".venv" / "bin"

# Deadlines, never sleeps: how long one step may take on a busy 2-core machine.
START_S = 60.0  # program start to its first screen (imports, runtime connect)
STEP_S = 60.0  # one agent step: an LLM call, an action, its observation
DOCKER_START_S = 180.0  # a sandbox start may build the image first
EXIT_S = 60.0

API_KEY = "sk-tmux-journey-key"
MODEL = f"openai/{DEFAULT_MODEL}"

# The texts the contract fixes (cli.md §6.2, §8, §9, §11).
COMMAND_DESCRIPTIONS = {
    "/exit": "Exit the application",
    "/help": "Display available commands",
    "/init": "Initialize a new repository",
    "/status": "Display conversation details and usage metrics",
    "/new": "Create a new conversation",
    "/settings": "Display and modify current settings",
    "/resume": "Resume the agent when paused",
    "/mcp": "Manage MCP server configuration and view errors",
}
YES = "Yes, proceed"
NO = "No (and allow to enter instructions)"
AUTO = "Auto-confirm action with LOW/MEDIUM risk, ask for HIGH risk"
ALWAYS = "Always proceed (don't ask again)"
CHOICES = (YES, NO, AUTO, ALWAYS)
HIGH_YES = "Yes, proceed (HIGH RISK - Use with caution)"
HIGH_ALWAYS = "Always proceed (don't ask again - NOT RECOMMENDED)"
HIGH_CHOICES = (HIGH_YES, NO, HIGH_ALWAYS)
WAITING = "Agent is waiting for your input..."
RUNNING = "Agent running... (Press Ctrl-P to pause)"
REJECTED = "Okay, please tell me what I should do next/instead."
NOT_PAUSED = "Error: Agent is not paused. /resume command is only available when agent is paused."
SESSION_OK = "✅ Session terminated successfully."
# The warning sign may or may not carry its emoji variation selector on screen.
SESSION_ERROR = re.compile(r"⚠\ufe0f? ?Session was interrupted: error")
SESSION_ID = re.compile(r"Initialized conversation (\S+)")
# §5.2 item 6 and §10: the welcome text, then " Type /help for help".
WELCOME = "What do you want to build? Type /help for help"
WELCOME_RESUMED = re.compile(
    r"What do you want to build\?\s+Loading previous conversation\.\s+Type /help for help"
)
WELCOME_AFTER_AUTH_ERROR = re.compile(
    r"Authentication error with the LLM provider\. Please check your API key\.\s+"
    r"Type /help for help"
)
# What must never reach the screen: per-step debug lines (0.59 printed the controller's
# "LEVEL 0 LOCAL STEP 3 GLOBAL STEP 3" there; a bare "step 3" line alike) and log records
# (a level name, or the "file.py:line" of the logging call).
DEBUG_OUTPUT = re.compile(
    r"\b(?:LOCAL|GLOBAL) STEP \d+|^\s*(?i:step) \d+\s*$|\b(?:WARNING|INFO|DEBUG)\b|\w\.py:\d+",
    re.MULTILINE,
)
ALIAS_OFFER_OR_TRUST = re.compile(r"Set up shell aliases\?|Do you trust the files in this folder\?")


# --------------------------------------------------------------------------------------
# The scripted agent
# --------------------------------------------------------------------------------------

# What the user types to make the agent run a shell command with a given risk.
RUN_REQUEST = re.compile(r"^run (?P<risk>LOW|MEDIUM|HIGH): (?P<command>.+)$")
# Context the agent adds to a user turn (<RUNTIME_INFORMATION>…</RUNTIME_INFORMATION> etc.).
_ADDED_CONTEXT = re.compile(r"<([A-Z][A-Z_]*)>.*?</\1>", re.DOTALL)


def message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def user_lines(messages: list[dict[str, Any]]) -> list[str]:
    """The non-blank lines the user said since the assistant's last turn."""
    turn: list[str] = []
    for message in reversed(messages):
        if message.get("role") == "assistant":
            break
        if message.get("role") == "user":
            turn.insert(0, _ADDED_CONTEXT.sub("", message_text(message)))
    return [line.strip() for line in "\n".join(turn).splitlines() if line.strip()]


def scripted_cli_agent(body: dict[str, Any]) -> ScriptItem:
    """The LLM of every journey; its answer depends on the request alone.

    - The last message is a tool result: a short report naming the step and the result's
      first line (replies differ, so the CLI's de-duplication of recent messages never hides
      one); the agent then waits for input.
    - Else the user's last line decides. ``run <RISK>: <command>``: an ``execute_bash`` call
      with that ``security_risk`` (in CLI mode the security analyzer is the LLM's own risk,
      §8). Anything else: ``Noted: <that line>``.
    """
    if not body.get("tools"):  # not an agent step (e.g. a condenser summary)
        return text("Scripted summary.")
    messages = body.get("messages") or []
    if messages and messages[-1].get("role") == "tool":
        results = sum(1 for m in messages if m.get("role") == "tool")
        first = next((ln for ln in message_text(messages[-1]).splitlines() if ln.strip()), "")
        return text(f"Step {results} finished; its output began with: {first.strip()}")
    said = user_lines(messages)
    last = said[-1] if said else "(nothing)"
    request = RUN_REQUEST.match(last)
    if request:
        arguments = {"command": request["command"], "security_risk": request["risk"]}
        return tool_call("execute_bash", arguments)
    return text(f"Noted: {last}")


def user_messages(request: RecordedRequest) -> list[str]:
    return [message_text(m) for m in request.messages if m.get("role") == "user"]


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} (waited {timeout:g} s)")
        time.sleep(0.1)


# --------------------------------------------------------------------------------------
# Fixtures: a fresh user, a repository, the LLM, terminals
# --------------------------------------------------------------------------------------


@dataclass
class CliWorld:
    """Everything one journey runs against."""

    home: Path  # $HOME: ~/.openhands lives here
    repo: Path  # the working directory, a git repository
    llm: ScriptedLLMServer
    env: dict[str, str]
    terminals: list[TmuxTerminal] = field(default_factory=list)

    @property
    def openhands_dir(self) -> Path:
        return self.home / ".openhands"

    def start(self, *args: str, cwd: Path | None = None) -> TmuxTerminal:
        """Start ``openhands <args>`` in a new terminal, as the user would type it."""
        terminal = TmuxTerminal(f"cli-{len(self.terminals)}")
        self.terminals.append(terminal)
        terminal.start(openhands_command(*args), self.env, cwd or self.repo)
        return terminal

    def seed_user_files(self) -> None:
        """Write what the first-run flow (§4.1) and trusting the repository (§2.1) leave in
        ``~/.openhands``, so a journey can start at the session screen. Confirmation mode is
        on, as CLI mode forces it anyway (§2 step 8)."""
        self.openhands_dir.mkdir(parents=True, exist_ok=True)
        settings = {
            "llm_model": MODEL,
            "llm_api_key": API_KEY,
            "llm_base_url": None,
            "agent": "CodeActAgent",
            "confirmation_mode": True,
            "enable_default_condenser": True,
        }
        (self.openhands_dir / "settings.json").write_text(json.dumps(settings))
        (self.openhands_dir / "config.toml").write_text(
            f"[sandbox]\ntrusted_dirs = [{json.dumps(str(self.repo))}]\n"
        )
        # The user already said no to the optional shell aliases (§14.3).
        (self.openhands_dir / ".cli_alias_setup_declined").touch()


def openhands_command(*args: str) -> list[str]:
    """The installed console script; ``python -m openhands.cli.entry`` until it is installed."""
    script = VENV_BIN / "openhands"
    if script.exists():
        return [str(script), *args]
    return [str(VENV_BIN / "python"), "-m", "openhands.cli.entry", *args]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Journey", "-c", "user.email=journey@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(fallback=scripted_cli_agent) as server:
        yield server


@pytest.fixture
def world(
    request: pytest.FixtureRequest, tmp_path: Path, llm: ScriptedLLMServer
) -> Iterator[CliWorld]:
    home = tmp_path / "home"
    home.mkdir()
    repo = (tmp_path / "repo").resolve()
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "README.md").write_text("# Journey repository\n")
    _git(repo, "add", "README.md")
    _git(repo, "commit", "-q", "-m", "initial commit")

    env = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "LLM_BASE_URL": llm.base_url,
        # LiteLLM does not know that "test-model" takes OpenAI tools; the scripted replies
        # are native tool calls.
        "LLM_NATIVE_TOOL_CALLING": "true",
        "OPENHANDS_TEST": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "OPENHANDS_WARMUP": "false",
    }
    # Kept from the test run: tmux sockets the app might start are cleaned up with the run's;
    # the Docker engine and the temp dir are the machine's.
    for name in ("OPENHANDS_TMUX_SOCKET_PREFIX", "DOCKER_HOST", "TMPDIR"):
        if name in os.environ:
            env[name] = os.environ[name]

    world = CliWorld(home=home, repo=repo, llm=llm, env=env)
    try:
        yield world
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        for index, terminal in enumerate(world.terminals):
            try:
                (ARTIFACTS / f"{safe}-{index}.txt").write_text(terminal.screen())
            except AssertionError:
                pass  # the terminal never started
            terminal.close()


# --------------------------------------------------------------------------------------
# Steps a user takes, shared by the journeys
# --------------------------------------------------------------------------------------


def first_run_setup(term: TmuxTerminal) -> None:
    """§4.1/§4.2: pick OpenAI and the scripted model by typing them, give a key, save,
    decline the search API."""
    term.wait_for("No settings found. Starting initial setup...", START_S)
    term.choose("(Step 1/3) Select LLM Provider:", "Select another provider")
    term.submit("openai")
    term.wait_for("Default model: gpt-5-2025-08-07")
    term.choose("Do you want to use a different model?", "Select another model")
    term.submit(DEFAULT_MODEL)
    term.wait_for("(Step 3/3) Enter API Key (CTRL-c to cancel): ")
    term.submit(API_KEY)
    term.choose("Save new settings? (They will take effect after restart)", "Yes, save")
    term.choose("Would you like to configure Search API settings (optional)?", "No")


def in_order(term: TmuxTerminal, patterns: list[Pattern], timeout: float) -> list[Found]:
    """Wait for each pattern below the previous one's line (from the last mark on)."""
    found: list[Found] = []
    for pattern in patterns:
        found.append(term.wait_for(pattern, timeout, since=found[-1].line if found else None))
    return found


def wait_session_screen(
    term: TmuxTerminal, timeout: float = START_S, welcome: Pattern = WELCOME
) -> str:
    """§5.2: the start screen of a session, in order, up to the open prompt; returns the
    conversation id shown in the banner."""
    banner, _, text = in_order(term, [SESSION_ID, "Let's start building!", welcome], timeout)
    term.wait_input(since=text.line)
    return banner.group(1)


def wait_start_after_setup(term: TmuxTerminal) -> None:
    """§5.2 item 4: after the first-run flow the banner is not shown again (the flow showed
    it, with the id ``setup``); the session starts at ``Let's start building!``."""
    _, text = in_order(term, ["Let's start building!", WELCOME], START_S)
    term.wait_input(since=text.line)


def agent_waits(term: TmuxTerminal, timeout: float = STEP_S, since: int | None = None) -> None:
    """§7/§6.1: the agent is done for now and the prompt is open again."""
    at = term.wait_for(WAITING, timeout, since).line
    term.wait_input(since=at)


def command_frame(term: TmuxTerminal, command: str, timeout: float = STEP_S) -> int:
    """§7: the ``Command`` frame showing ``$ <command>``; returns the line of the command."""
    found = term.wait_for(re.compile(r"Command\b.*\n(.*\n)*?.*\$ " + re.escape(command)), timeout)
    return found.line + found.text.count("\n")


def command_menu(term: TmuxTerminal, command: str, choice: str) -> Menu:
    """§8: the ``Command`` frame, then (below it) the confirmation menu, answered."""
    return term.choose("Choose an option:", choice, STEP_S, since=command_frame(term, command))


def command_output(
    term: TmuxTerminal, expected: str, timeout: float = STEP_S, since: int | None = None
) -> str:
    """§7: a ``Command Output`` frame that contains ``expected``, at or after line ``since``
    (default: the last mark); returns the text from the frame's title on."""
    pattern = re.compile(r"Command Output.*\n(.*\n)*?.*" + re.escape(expected))
    return term.wait_for(pattern, timeout, since).text


def exit_with_summary(term: TmuxTerminal, sid: str) -> None:
    """§6.2 ``/exit`` and §11: confirm, see the usage summary in its order, the last line, and
    the program ends with 0."""
    term.submit("/exit")
    term.choose("Terminate session?", "Yes, proceed")
    in_order(
        term,
        [
            "Closing current conversation...",
            "Usage Metrics",
            re.compile(r"Total Cost \(USD\):\s+\$\d+\.\d{6}"),
            re.compile(r"Total Input Tokens:\s+[\d,]+"),
            re.compile(r"Total Output Tokens:\s+[\d,]+"),
            re.compile(r"Total Tokens:\s+[\d,]+"),
            re.compile(r"Conversation duration:\s+\d+h \d+m \d+s"),
            f"Closed conversation {sid}",
            SESSION_OK,
        ],
        EXIT_S,
    )
    assert term.wait_exit(EXIT_S) == 0
    assert "DEPRECATION WARNING" not in term.screen()  # our departure from §12.1


# --------------------------------------------------------------------------------------
# The driver itself, on a tiny prompt_toolkit program (so a journey's failure is the app's)
# --------------------------------------------------------------------------------------

TINY_PROGRAM = """
import os, sys
from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

def pick(question, entries):
    chosen = [0]
    keys = KeyBindings()
    @keys.add("down")
    def _down(event): chosen[0] = min(chosen[0] + 1, len(entries) - 1)
    @keys.add("up")
    def _up(event): chosen[0] = max(chosen[0] - 1, 0)
    @keys.add("enter")
    def _enter(event): event.app.exit(result=chosen[0])
    def draw():
        rows = [("> " if i == chosen[0] else "  ") + e for i, e in enumerate(entries)]
        return "\\n".join(["\\u2502" + question, *("\\u2502" + r for r in rows)])
    control = FormattedTextControl(draw)
    return Application(layout=Layout(Window(control)), key_bindings=keys).run()

print("env:", os.environ.get("GREETING"), os.getcwd(), os.get_terminal_size().columns)
name = PromptSession().prompt("Your name: ")
index = pick("Pick a fruit:", ["apple", "banana", "cherry"])
print(f"{name} picked {index}")
sys.exit(index + 3)
"""


@pytest.mark.parametrize(
    "line",
    [
        "LEVEL 0 LOCAL STEP 3 GLOBAL STEP 3",
        "step 12",
        "2026-01-01 10:00:00,000 - WARNING - openhands:cli_runtime.py:118 - no sandbox",
        "DEBUG:openhands:agent_controller.py:851 stepping",
    ],
)
def test_the_debug_output_pattern_catches_what_0_59_printed(line: str) -> None:
    # The journeys' "no debug output" checks are only as good as this pattern; what the
    # scripted agent and the app legitimately print must not match it.
    assert DEBUG_OUTPUT.search(f"Agent running...\n{line}\nTask completed...")
    assert not DEBUG_OUTPUT.search("Step 3 finished; its output began with: 42\n$ step 12 done")


def test_terminal_driver_on_a_tiny_program(tmp_path: Path) -> None:
    program = tmp_path / "tiny.py"
    program.write_text(TINY_PROGRAM)
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "GREETING": "hello"}
    with TmuxTerminal("driver-check") as term:
        term.start([str(VENV_BIN / "python"), str(program)], env, tmp_path)
        term.wait_for(f"env: hello {tmp_path} 160", START_S)
        term.submit("Ada")
        menu = term.choose("Pick a fruit:", "cherry")
        assert menu == Menu(entries=("apple", "banana", "cherry"), selected=0)
        term.wait_for("Ada picked 2")
        assert term.wait_exit(EXIT_S) == 5


# --------------------------------------------------------------------------------------
# Journeys
# --------------------------------------------------------------------------------------


def test_version_flag(world: CliWorld) -> None:
    """§1.2 fast path: ``openhands --version`` prints the version and exits 0, no banner."""
    term = world.start("--version")
    assert term.wait_exit(START_S) == 0
    screen = term.screen()
    assert f"OpenHands CLI version: {openhands.__version__}" in screen
    assert openhands.__version__ == "0.59.0"
    assert "DEPRECATION WARNING" not in screen


def test_help_flag(world: CliWorld) -> None:
    """§1.2: ``openhands --help`` shows both commands, then the ``cli`` help, exit 0."""
    term = world.start("--help")
    assert term.wait_exit(START_S) == 0
    screen = term.screen()
    assert re.search(r"\bserve\b", screen) and re.search(r"\bcli\b", screen)
    assert re.search(r"^={80}$", screen, re.MULTILINE), "no line of 80 '='"
    help_part = screen[screen.index("CLI command help:") :]
    for flag in ("--task", "--file", "--override-cli-mode", "--conversation"):
        assert flag in help_part, f"{flag} missing from the cli help"
    assert "DEPRECATION WARNING" not in screen


def test_untrusted_folder_no_exit(world: CliWorld) -> None:
    """§2.1: a user who does not trust the folder leaves; nothing is added to the list."""
    world.seed_user_files()
    config = world.openhands_dir / "config.toml"
    config.unlink()  # settings exist, but no folder is trusted yet
    term = world.start()
    term.wait_for("Do you trust the files in this folder?", START_S)
    term.wait_for(str(world.repo))
    term.wait_for("OpenHands may read and execute files in this folder with your permission.")
    term.choose("Do you wish to continue?", "No, exit")
    assert term.wait_exit(EXIT_S) == 0
    assert SESSION_ID.search(term.screen()) is None, "a session started anyway"
    if config.exists():
        trusted = tomllib.loads(config.read_text()).get("sandbox", {}).get("trusted_dirs", [])
        assert str(world.repo) not in trusted
    assert world.llm.completion_requests == []


def test_first_run_setup_trust_and_slash_commands(world: CliWorld) -> None:
    """A new user: first-run settings (§4.1–4.2), trusting the repository (§2.1), the start
    screen (§5.2) and the commands that need no agent: /help, /status, /settings, /resume
    when not paused, Ctrl-D then dismiss, and /exit. A second start asks nothing again."""
    term = world.start()
    first_run_setup(term)

    # §16 item 3: what the flow saved.
    settings = json.loads((world.openhands_dir / "settings.json").read_text())
    assert settings["llm_model"] == MODEL
    assert settings["llm_api_key"] == API_KEY
    assert settings["agent"] == "CodeActAgent"
    assert settings["enable_default_condenser"] is True

    # §14.3 (optional in our app): if shell aliases are offered, "no" touches no rc file
    # and is remembered.
    offered = term.wait_for(ALIAS_OFFER_OR_TRUST, START_S).text == "Set up shell aliases?"
    if offered:
        term.choose("Set up shell aliases?", "No, skip this step")

    # §2.1: the trust question names this folder; yes remembers it.
    term.wait_for("Do you trust the files in this folder?", START_S)
    if offered:
        assert (world.openhands_dir / ".cli_alias_setup_declined").exists()
    assert not any((world.home / rc).exists() for rc in (".bashrc", ".bash_profile", ".zshrc"))
    term.wait_for(str(world.repo))
    term.choose("Do you wish to continue?", "Yes, proceed")
    wait_start_after_setup(term)
    config = tomllib.loads((world.openhands_dir / "config.toml").read_text())
    assert str(world.repo) in config["sandbox"]["trusted_dirs"]

    # §6.2 /help: every command with its exact description.
    term.submit("/help")
    term.wait_for("Interactive commands:")
    term.wait_for("/mcp - " + COMMAND_DESCRIPTIONS["/mcp"])
    shown = term.since()
    assert f"OpenHands CLI v{openhands.__version__}" in shown
    for command, description in COMMAND_DESCRIPTIONS.items():
        assert f"{command} - {description}" in shown, f"/help lacks {command}"

    # §6.2 /status before any LLM call: the id, the uptime, zero cost.
    term.submit("/status")
    sid = term.wait_for(re.compile(r"Conversation ID: (\S+)")).group(1)
    assert sid != "setup"
    term.wait_for(re.compile(r"Uptime:\s+\d+h \d+m \d+s"))
    term.wait_for("Usage Metrics")
    term.wait_for(re.compile(r"Total Cost \(USD\):\s+\$0\.000000"))
    term.wait_for(re.compile(r"Total Tokens:\s+0\b"))

    # §6.2 /settings: the frame, then leave the menu untouched.
    term.submit("/settings")
    term.wait_for("Settings")
    term.wait_for(re.compile(r"LLM Model:?\s+(openai/)?" + re.escape(DEFAULT_MODEL)))
    term.wait_for(re.compile(r"API Key:?\s+\*{8}"))
    term.wait_for(re.compile(r"Confirmation Mode:?\s+Enabled"))
    term.wait_for(re.compile(r"Configuration File:?\s+\S*settings\.json"))
    assert API_KEY not in term.since()
    term.choose("Which settings would you like to modify?", "Go back")

    # §6.2 /resume when nothing is paused.
    term.submit("/resume")
    term.wait_for(NOT_PAUSED)

    # §6.1: Ctrl-D at an empty prompt asks to terminate; dismissing keeps the session.
    term.wait_input()
    term.mark()
    term.send_keys("C-d")
    term.choose("Terminate session?", "No, dismiss")
    term.wait_input()
    assert world.llm.completion_requests == [], "no message was typed, yet the LLM was called"

    exit_with_summary(term, sid)

    # §16 item 5: a second start neither sets up nor asks for trust again.
    again = world.start()
    second_sid = wait_session_screen(again)
    assert second_sid != sid
    seen = again.screen()
    assert "No settings found" not in seen
    assert "Do you trust the files in this folder?" not in seen
    exit_with_summary(again, second_sid)


def test_task_runs_a_file_and_each_confirmation_choice(world: CliWorld) -> None:
    """§8: the agent creates a file in the repository and runs it after "Yes"; "No" keeps a
    command from running; a HIGH-risk command offers three choices; auto-confirm lets
    LOW/MEDIUM through and still asks for HIGH; after "Always" nothing asks. Long output is
    cut to 15 lines (§7)."""
    world.seed_user_files()
    term = world.start()
    sid = wait_session_screen(term)

    # Yes: create answer.py in the repository and run it (CLIRuntime works on this machine).
    create_and_run = "printf 'print(6 * 7)\\n' > answer.py && python3 answer.py"
    term.submit(f"run LOW: {create_and_run}")
    menu = command_menu(term, create_and_run, YES)
    assert menu.entries == CHOICES, menu
    assert menu.selected == 0  # §4: the first entry starts selected
    assert "42" in command_output(term, "42")
    term.wait_for("Step 1 finished", STEP_S)  # the agent's answer to the output
    agent_waits(term)
    assert (world.repo / "answer.py").read_text() == "print(6 * 7)\n"
    # Log records go to ~/.openhands/logs/cli.log, never between the panels: the
    # CLIRuntime's warnings (logged while the session was assembled) are in the file only.
    log_text = (world.openhands_dir / "logs" / "cli.log").read_text()
    assert "CLIRuntime workspace is" in log_text, log_text
    assert not re.search(r"\b(WARNING|INFO|DEBUG)\b|cli_runtime\.py", term.screen()), term.tail()

    # No: the command does not run; the user is asked what to do instead.
    term.submit("run LOW: touch rejected.txt")
    menu = command_menu(term, "touch rejected.txt", NO)
    assert menu.entries == CHOICES
    term.wait_for(REJECTED, STEP_S)
    term.wait_input()
    assert not (world.repo / "rejected.txt").exists()
    assert "Command Output" not in term.since()

    # HIGH risk: a framed warning and three choices (no auto-confirm).
    term.submit("run HIGH: echo high-risk-one")
    shown_at = command_frame(term, "echo high-risk-one")
    term.wait_for("Review carefully before proceeding.", STEP_S, since=shown_at)
    menu = term.choose("HIGH RISK command detected.", HIGH_YES, STEP_S, since=shown_at)
    assert menu.entries == HIGH_CHOICES, menu
    command_output(term, "high-risk-one")
    agent_waits(term)

    # Auto-confirm for LOW/MEDIUM, chosen on a LOW command.
    term.submit("run LOW: echo auto-chosen")
    command_menu(term, "echo auto-chosen", AUTO)
    command_output(term, "auto-chosen")
    agent_waits(term)

    # A MEDIUM command now runs without a menu; its 40 lines are cut to 15.
    asked_at = term.submit("run MEDIUM: seq 1 40")
    found = term.wait_for(
        re.compile(r"Command Output \(showing 15 of (\d+) lines\)(.*\n)*?.*\.\.\. and (\d+) more"),
        STEP_S,
    )
    total, more = int(found.group(1)), int(found.group(3))
    assert total in (40, 41) and more == total - 15, found.text  # 41: a trailing newline
    agent_waits(term)
    assert "Choose an option:" not in term.since(asked_at), "auto-confirm still asked"

    # HIGH still asks after auto-confirm; choose "Always".
    term.submit("run HIGH: echo high-risk-two")
    shown_at = command_frame(term, "echo high-risk-two")
    menu = term.choose("HIGH RISK command detected.", HIGH_ALWAYS, STEP_S, since=shown_at)
    assert menu.entries == HIGH_CHOICES
    command_output(term, "high-risk-two")
    agent_waits(term)

    # After "Always", even HIGH runs without asking.
    asked_at = term.submit("run HIGH: echo high-risk-three")
    command_output(term, "high-risk-three")
    agent_waits(term)
    assert "Choose an option:" not in term.since(asked_at), "'Always' still asked"
    # Eight agent steps, and not one debug or log line between the panels.
    assert not DEBUG_OUTPUT.search(term.screen()), term.tail()

    exit_with_summary(term, sid)


def test_pause_and_resume_while_a_command_runs(world: CliWorld) -> None:
    """§9: Ctrl-P while a command runs pauses the agent; /resume sends ``continue`` and the
    agent carries on. /resume is refused while nothing is paused (§6.2)."""
    world.seed_user_files()
    term = world.start()
    sid = wait_session_screen(term)

    term.submit("/resume")
    term.wait_for(NOT_PAUSED)

    slow = "sleep 20 && echo woke-up"
    term.submit(f"run LOW: {slow}")
    term.wait_for(RUNNING, STEP_S)
    command_menu(term, slow, YES)
    # The command runs now (the menu was answered "Yes"); the listener is on again.
    term.wait_for(RUNNING, STEP_S)
    requests_before = len(world.llm.completion_requests)
    term.send_keys("C-p")
    term.wait_for("Pausing the agent...", STEP_S)
    paused_at = term.wait_for("Agent paused... (Enter /resume to continue)", STEP_S).line
    assert "Command Output" not in term.since(), "the command ended before the pause"

    term.submit("/resume")
    wait_until(
        lambda: any(
            [m.strip() for m in user_messages(r)][-1:] == ["continue"]
            for r in world.llm.completion_requests[requests_before:]
        ),
        STEP_S,
        "/resume did not send the user message 'continue' to the agent",
    )
    # The command's output is shown (it may arrive while paused or after /resume, §7) and
    # the agent, running again, gets to see it and answers.
    output_at = term.wait_for(
        re.compile(r"Command Output.*\n(.*\n)*?.*woke-up"), STEP_S, since=paused_at
    ).line
    wait_until(
        lambda: any(
            m.get("role") == "tool" and "woke-up" in message_text(m)
            for r in world.llm.completion_requests
            for m in r.messages
        ),
        STEP_S,
        "after /resume the agent never received the output of the command it was running",
    )
    agent_waits(term, since=output_at)

    exit_with_summary(term, sid)


def test_status_new_exit_and_resume_by_id(world: CliWorld) -> None:
    """A short conversation, /status, /new (a new id), /exit with the usage summary, then
    ``openhands --conversation <id>`` continues the first conversation with its history."""
    world.seed_user_files()
    term = world.start()
    sid = wait_session_screen(term)

    term.submit("remember the word pineapple")
    term.wait_for("Noted: remember the word pineapple", STEP_S)
    agent_waits(term)
    term.submit("run LOW: echo tmux-journey > note.txt && cat note.txt")
    command_menu(term, "echo tmux-journey > note.txt && cat note.txt", YES)
    command_output(term, "tmux-journey")
    agent_waits(term)

    term.submit("/status")
    term.wait_for(f"Conversation ID: {sid}")
    term.wait_for(re.compile(r"Total Cost \(USD\):\s+\$\d+\.\d{6}"))
    term.wait_for(re.compile(r"Total Input Tokens:\s+[1-9][\d,]*"))

    # /new: the old conversation is summarised and closed, a new one starts.
    term.submit("/new")
    term.wait_for("Current session will be terminated and you will lose the conversation history.")
    term.choose("Continue?", "Yes, proceed")
    term.wait_for("Usage Metrics", EXIT_S)
    term.wait_for(f"Closed conversation {sid}", EXIT_S)
    new_sid = wait_session_screen(term)
    assert new_sid != sid

    exit_with_summary(term, new_sid)

    # §10: resume the first conversation by id (our fix of the §1.3 QUIRK).
    requests_before = len(world.llm.completion_requests)
    resumed = world.start("--conversation", sid)
    assert wait_session_screen(resumed, welcome=WELCOME_RESUMED) == sid
    assert "Do you trust the files in this folder?" not in resumed.screen()
    assert len(world.llm.completion_requests) == requests_before, "resume sent a message"

    resumed.submit("what was the word?")
    resumed.wait_for("Noted: what was the word?", STEP_S)
    agent_waits(resumed)
    request = next(
        r
        for r in world.llm.completion_requests[requests_before:]
        if any("what was the word?" in m for m in user_messages(r))
    )
    history = json.dumps(request.messages)
    assert "remember the word pineapple" in history, "the earlier messages were not sent"
    assert "tmux-journey" in history, "the earlier command output was not sent"
    exit_with_summary(resumed, sid)


def test_llm_auth_error_then_resume(world: CliWorld) -> None:
    """§12.2 with a key the LLM rejects (401): the session ends with the error line; the
    next start of that conversation (``openhands cli --conversation``) says why (§10)."""
    world.seed_user_files()
    world.llm.fallback = auth_error()
    term = world.start()
    sid = wait_session_screen(term)

    term.submit("hello there")
    term.wait_for(SESSION_ERROR, STEP_S)
    assert term.wait_exit(EXIT_S) == 0
    # The error line is the last thing the program printed (no banner after it).
    printed = [ln for ln in term.lines() if ln.strip() and "__TMUX_TERMINAL_EXIT__" not in ln]
    assert SESSION_ERROR.fullmatch(printed[-1].strip()), printed[-3:]
    assert (world.openhands_dir / "sessions" / sid / "agent_state.pkl").exists()
    assert world.llm.completion_requests, "the message never reached the LLM"

    requests_before = len(world.llm.completion_requests)
    resumed = world.start("cli", "--conversation", sid)
    # §10: the reason instead of the usual welcome text.
    assert wait_session_screen(resumed, welcome=WELCOME_AFTER_AUTH_ERROR) == sid
    assert len(world.llm.completion_requests) == requests_before, "resume sent a message"
    exit_with_summary(resumed, sid)


# --------------------------------------------------------------------------------------
# The same kind of journey with a Docker sandbox
# --------------------------------------------------------------------------------------


@pytest.mark.docker
def test_docker_runtime_task_and_exit(world: CliWorld) -> None:
    """``--override-cli-mode true`` keeps the repository's config.toml: a Docker sandbox with
    confirmation mode. The agent creates and runs a file in /workspace (the repository,
    mounted) after the user confirms; then the user exits."""
    world.seed_user_files()  # confirmation_mode true: it wins over config.toml (§2 step 6)
    # The sandbox user may not be root: let it write into the mounted repository.
    world.repo.chmod(0o777)
    (world.repo / "config.toml").write_text(
        "\n".join(
            [
                "[core]",
                'runtime = "docker"',
                f"workspace_base = {json.dumps(str(world.repo))}",
                "",
                "[security]",
                "confirmation_mode = true",
                'security_analyzer = "llm"',
                "",
            ]
        )
    )
    term = world.start("--override-cli-mode", "true")
    try:
        term.wait_for("🐳 Starting Docker runtime...", START_S)
        sid = wait_session_screen(term, DOCKER_START_S)

        # Outside CLI mode the controller asks for HIGH-risk actions only (§8).
        command = (
            "printf 'print(\"hi from docker\")\\n' > /workspace/hello.py"
            " && python3 /workspace/hello.py"
        )
        term.submit(f"run HIGH: {command}")
        shown_at = command_frame(term, command, DOCKER_START_S)
        menu = term.choose("HIGH RISK command detected.", HIGH_YES, STEP_S, since=shown_at)
        assert menu.entries == HIGH_CHOICES
        command_output(term, "hi from docker", DOCKER_START_S)
        agent_waits(term)
        assert (world.repo / "hello.py").read_text() == 'print("hi from docker")\n'

        exit_with_summary(term, sid)
    finally:
        remove_sandboxes_mounting(world.repo)


def remove_sandboxes_mounting(host_dir: Path) -> None:
    """Remove the sandbox containers that mount ``host_dir``. A journey that fails half-way
    kills the app with its terminal, and its sandbox would stay up (the suite only sweeps
    stopped ones); a passed one leaves a stopped container."""

    def docker(*args: str) -> str:
        result = subprocess.run(
            ["docker", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120
        )
        return result.stdout

    for container in docker("ps", "-aq", "--filter", "name=openhands-runtime-").split():
        sources = docker("inspect", "--format", "{{range .Mounts}}{{.Source}} {{end}}", container)
        if str(host_dir) in sources.split():
            docker("rm", "-f", container)
