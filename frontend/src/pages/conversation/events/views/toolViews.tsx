/** Delegation, MCP tool calls and the task tracker. */
import type {
  DelegateAction,
  DelegateObservation,
  McpAction,
  McpObservation,
  TaskItem,
  TaskTrackingAction,
  TaskTrackingObservation,
} from "../../../../api/types";
import { CodeBlock } from "../../display/CodeBlock";
import { Collapsible } from "../../display/Collapsible";
import { Markdown } from "../../display/Markdown";
import { ActionBadges, EventShell, Json, Thought } from "../EventShell";

export function DelegateView({ event }: { event: DelegateAction }) {
  const { agent, inputs, thought } = event.args;
  const task = typeof inputs.task === "string" ? inputs.task : null;
  return (
    <EventShell event={event} variant="card" heading={`Delegating to ${agent}`} label={`Delegating to ${agent}`}>
      <Thought text={thought} />
      {task ? <Markdown text={task} /> : <Collapsible summary="Inputs">{() => <Json value={inputs} />}</Collapsible>}
    </EventShell>
  );
}

export function DelegateResultView({ event }: { event: DelegateObservation }) {
  return (
    <EventShell event={event} variant="compact" label="Delegate finished">
      <Collapsible summary="The delegate finished">
        {() => (
          <>
            {event.content && <Markdown text={event.content} />}
            <Json value={event.extras.outputs} />
          </>
        )}
      </Collapsible>
    </EventShell>
  );
}

export function McpView({ event }: { event: McpAction }) {
  const { name, arguments: args, thought, security_risk } = event.args;
  return (
    <EventShell
      event={event}
      variant="compact"
      label={`MCP tool ${name}`}
    >
      <Thought text={thought} />
      <Collapsible
        summary={
          <>
            Calling MCP tool <code>{name}</code> <ActionBadges risk={security_risk} />
          </>
        }
      >
        {() => <Json value={args} />}
      </Collapsible>
    </EventShell>
  );
}

export function McpResultView({ event }: { event: McpObservation }) {
  return (
    <EventShell event={event} variant="compact" label={`MCP tool ${event.extras.name} result`}>
      <Collapsible summary={<>Result of MCP tool <code>{event.extras.name || "(unknown)"}</code></>}>
        {() => <CodeBlock code={event.content} />}
      </Collapsible>
    </EventShell>
  );
}

const STATUS_MARK: Record<string, string> = { todo: "○", in_progress: "◐", done: "●" };

export function TaskList({ tasks }: { tasks: TaskItem[] }) {
  return (
    <ol className="task-list" data-testid="task-list">
      {tasks.map((task, i) => {
        const status = typeof task.status === "string" ? task.status : "todo";
        return (
          <li key={typeof task.id === "string" ? task.id : i} className={`task task--${status}`}>
            <span className="task__mark" aria-hidden="true">
              {STATUS_MARK[status] ?? "○"}
            </span>
            <span className="task__title">{typeof task.title === "string" ? task.title : JSON.stringify(task)}</span>
            <span className="visually-hidden"> ({status.replace("_", " ")})</span>
            {typeof task.notes === "string" && task.notes && <span className="task__notes muted">{task.notes}</span>}
          </li>
        );
      })}
    </ol>
  );
}

export function TaskTrackingView({ event }: { event: TaskTrackingAction }) {
  const { command, task_list, thought } = event.args;
  return (
    <EventShell event={event} variant="compact" label="Task list">
      <Thought text={thought} />
      {command === "plan" && task_list.length > 0 ? (
        <>
          <p className="compact-line">Updated the task list:</p>
          <TaskList tasks={task_list} />
        </>
      ) : (
        <p className="compact-line">{command === "view" ? "Checking the task list" : event.message}</p>
      )}
    </EventShell>
  );
}

export function TaskTrackingResultView({ event }: { event: TaskTrackingObservation }) {
  const tasks = event.extras.task_list;
  return (
    <EventShell event={event} variant="compact" label="Task list">
      {tasks.length > 0 ? (
        <Collapsible summary={`Task list (${tasks.filter((t) => t.status === "done").length}/${tasks.length} done)`} defaultOpen={event.extras.command === "view"}>
          {() => <TaskList tasks={tasks} />}
        </Collapsible>
      ) : (
        <p className="compact-line">{event.content || "The task list is empty."}</p>
      )}
    </EventShell>
  );
}
