/**
 * The agent's shell as a terminal: commands (CmdRunAction) and their output
 * (CmdOutputObservation) are written to xterm.js as they arrive. The user
 * runs their own command from the prompt line under it; it is sent as a
 * `run` action (server-api.md §7.6) and comes back through the same events.
 */
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { OhEvent, UserAction } from "../../../api/types";
import { runCommand, terminalText } from "./terminalText";

export default function TerminalTab({
  events,
  onSend,
}: {
  events: readonly OhEvent[];
  onSend(action: UserAction): boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const writtenUpTo = useRef(-1);
  const [command, setCommand] = useState("");
  const history = useRef<string[]>([]);
  const historyAt = useRef(0);

  useEffect(() => {
    if (!host.current) return;
    const terminal = new Terminal({
      convertEol: false,
      disableStdin: true,
      cursorBlink: false,
      fontSize: 13,
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
      scrollback: 10000,
      theme: { background: "#0f1115", foreground: "#d8dde6" },
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(host.current);
    const refit = () => {
      try {
        fit.fit();
      } catch {
        // The panel is hidden (no size yet); the next resize fits it.
      }
    };
    refit();
    const observer = new ResizeObserver(refit);
    observer.observe(host.current);
    term.current = terminal;
    writtenUpTo.current = -1;
    return () => {
      observer.disconnect();
      terminal.dispose();
      term.current = null;
    };
  }, []);

  // Append everything newer than what is already on screen (events are sorted by id).
  useEffect(() => {
    const terminal = term.current;
    if (!terminal) return;
    if (events.length === 0 && writtenUpTo.current >= 0) {
      terminal.reset();
      writtenUpTo.current = -1;
    }
    let start = events.length;
    while (start > 0 && (events[start - 1]?.id ?? -1) > writtenUpTo.current) start--;
    let chunk = "";
    for (let i = start; i < events.length; i++) chunk += terminalText(events[i] as OhEvent) ?? "";
    const last = events[events.length - 1];
    if (last?.id !== undefined) writtenUpTo.current = Math.max(writtenUpTo.current, last.id);
    if (chunk) terminal.write(chunk);
  }, [events]);

  function submit() {
    const text = command.trim();
    if (!text) return;
    if (onSend(runCommand(text))) {
      history.current.push(text);
      historyAt.current = history.current.length;
      setCommand("");
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Enter") {
      event.preventDefault();
      submit();
    } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
      const list = history.current;
      if (!list.length) return;
      event.preventDefault();
      const next = Math.min(list.length, Math.max(0, historyAt.current + (event.key === "ArrowUp" ? -1 : 1)));
      historyAt.current = next;
      setCommand(list[next] ?? "");
    }
  }

  return (
    <div className="terminal" data-testid="terminal">
      <div className="terminal__screen" ref={host} aria-label="Terminal output" role="log" />
      <div className="terminal__prompt">
        <span aria-hidden="true">$</span>
        <input
          data-testid="terminal-input"
          aria-label="Run a command in the agent's terminal"
          placeholder="Type a command and press Enter"
          spellCheck={false}
          autoComplete="off"
          value={command}
          onChange={(e) => setCommand(e.target.value)}
          onKeyDown={onKeyDown}
        />
      </div>
    </div>
  );
}
