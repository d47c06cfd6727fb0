/**
 * Every JSON shape that crosses the wire between this UI and the server.
 *
 * Hand-kept from shared/spec/server-api.md (REST, Socket.IO) and
 * shared/spec/events.md (event envelope, action args, observation extras).
 * Names mirror the server's models so this module can be checked field by
 * field against the server's /openapi.json. Nothing else in the app declares
 * a wire type: components import from here.
 */

// ---------------------------------------------------------------------------
// Enumerations (events.md §1, server-api.md §4 and §7.5)
// ---------------------------------------------------------------------------

export type EventSource = "agent" | "user" | "environment";

export const AGENT_STATES = [
  "loading",
  "init",
  "running",
  "awaiting_user_input",
  "paused",
  "stopped",
  "finished",
  "rejected",
  "error",
  "rate_limited",
  "awaiting_user_confirmation",
  "user_confirmed",
  "user_rejected",
] as const;
export type AgentState = (typeof AGENT_STATES)[number];

/** ActionSecurityRisk is an integer enum: UNKNOWN=-1, LOW=0, MEDIUM=1, HIGH=2. */
export type SecurityRisk = -1 | 0 | 1 | 2;
export type ConfirmationStatus = "confirmed" | "rejected" | "awaiting_confirmation";
export type FileEditSource = "llm_based_edit" | "oh_aci";
export type FileReadSource = "oh_aci" | "default";
export type RecallType = "workspace_context" | "knowledge";

export type ConversationStatus = "STARTING" | "RUNNING" | "STOPPED" | "ARCHIVED" | "ERROR";
export type ProviderType = "github" | "gitlab" | "bitbucket" | "enterprise_sso";
export type ConversationTrigger =
  | "resolver"
  | "gui"
  | "suggested_task"
  | "openhands_api"
  | "slack"
  | "microagent_management"
  | "jira"
  | "jira_dc"
  | "linear";

/** `runtime_status` values and status-update ids (server-api.md §4). Other ids may appear. */
export type RuntimeStatus =
  | "STATUS$STOPPED"
  | "STATUS$BUILDING_RUNTIME"
  | "STATUS$STARTING_RUNTIME"
  | "STATUS$RUNTIME_STARTED"
  | "STATUS$SETTING_UP_WORKSPACE"
  | "STATUS$SETTING_UP_GIT_HOOKS"
  | "STATUS$READY"
  | "STATUS$ERROR"
  | "STATUS$ERROR_RUNTIME_DISCONNECTED"
  | "STATUS$ERROR_LLM_AUTHENTICATION"
  | "STATUS$ERROR_LLM_SERVICE_UNAVAILABLE"
  | "STATUS$ERROR_LLM_INTERNAL_SERVER_ERROR"
  | "STATUS$ERROR_LLM_OUT_OF_CREDITS"
  | "STATUS$ERROR_LLM_CONTENT_POLICY_VIOLATION"
  | "CHAT_INTERFACE$AGENT_RATE_LIMITED_STOPPED_MESSAGE"
  | "STATUS$GIT_PROVIDER_AUTHENTICATION_ERROR"
  | "STATUS$LLM_RETRY"
  | "STATUS$ERROR_MEMORY";

// ---------------------------------------------------------------------------
// Event envelope (events.md §2–3)
// ---------------------------------------------------------------------------

export interface TokenUsage {
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  context_window: number;
  per_turn_token: number;
  response_id: string;
}

export interface LlmMetrics {
  accumulated_cost: number;
  max_budget_per_task: number | null;
  accumulated_token_usage?: TokenUsage;
  costs: { model: string; cost: number; timestamp: number }[];
  response_latencies: { model: string; latency: number; response_id: string }[];
  token_usages: TokenUsage[];
}

export interface ToolCallMetadata {
  function_name: string;
  tool_call_id: string;
  model_response: Record<string, unknown>;
  total_calls_in_response: number;
}

interface EventEnvelope {
  /** Absent only on the synthetic "stopped" payload (server-api.md §7.5). */
  id?: number;
  timestamp?: string;
  source?: EventSource;
  message: string;
  cause?: number;
  tool_call_metadata?: ToolCallMetadata;
  llm_metrics?: LlmMetrics;
}

interface ActionEnvelope<T extends string, A> extends EventEnvelope {
  action: T;
  args: A;
  timeout?: number | null;
}

interface ObservationEnvelope<T extends string, X> extends EventEnvelope {
  observation: T;
  content: string;
  extras: X;
  success?: boolean;
}

// --- action args (events.md §4.2, serialization order) ---------------------

export interface MessageArgs {
  content: string;
  file_urls: string[] | null;
  image_urls: string[] | null;
  wait_for_response: boolean;
  security_risk?: SecurityRisk;
}
export interface SystemMessageArgs {
  content: string;
  tools: unknown[] | null;
  openhands_version: string | null;
  agent_class: string | null;
}
export interface CmdRunArgs {
  command: string;
  is_input: boolean;
  thought: string;
  blocking: boolean;
  is_static: boolean;
  cwd: string | null;
  hidden: boolean;
  confirmation_state: ConfirmationStatus;
  security_risk?: SecurityRisk;
}
export interface IPythonRunCellArgs {
  code: string;
  thought: string;
  include_extra: boolean;
  confirmation_state: ConfirmationStatus;
  security_risk?: SecurityRisk;
  kernel_init_code: string;
}
export interface BrowseUrlArgs {
  url: string;
  thought: string;
  security_risk?: SecurityRisk;
  return_axtree: boolean;
}
export interface BrowseInteractiveArgs {
  browser_actions: string;
  thought: string;
  browsergym_send_msg_to_user: string;
  security_risk?: SecurityRisk;
  return_axtree: boolean;
}
export interface FileReadArgs {
  path: string;
  start: number;
  end: number;
  thought: string;
  security_risk?: SecurityRisk;
  impl_source: FileReadSource;
  view_range: number[] | null;
}
export interface FileWriteArgs {
  path: string;
  content: string;
  start: number;
  end: number;
  thought: string;
  security_risk?: SecurityRisk;
}
export interface FileEditArgs {
  path: string;
  command: string;
  file_text: string | null;
  old_str: string | null;
  new_str: string | null;
  insert_line: number | null;
  content: string;
  start: number;
  end: number;
  thought: string;
  security_risk?: SecurityRisk;
  impl_source: FileEditSource;
}
export interface ThinkArgs {
  thought: string;
}
export interface FinishArgs {
  final_thought: string;
  outputs: Record<string, unknown>;
  thought: string;
}
export interface RejectArgs {
  outputs: Record<string, unknown>;
  thought: string;
}
export interface DelegateArgs {
  agent: string;
  inputs: Record<string, unknown>;
  thought: string;
}
export interface RecallArgs {
  recall_type: RecallType;
  query: string;
  thought: string;
}
export interface ChangeAgentStateArgs {
  agent_state: string;
  thought: string;
}
export type EmptyArgs = Record<string, never>;
export interface CondensationArgs {
  forgotten_event_ids: number[] | null;
  forgotten_events_start_id: number | null;
  forgotten_events_end_id: number | null;
  summary: string | null;
  summary_offset: number | null;
}
export interface McpArgs {
  name: string;
  arguments: Record<string, unknown>;
  thought: string;
  security_risk?: SecurityRisk;
}
export interface TaskItem {
  id?: string;
  title?: string;
  status?: string;
  notes?: string;
  [key: string]: unknown;
}
export interface TaskTrackingArgs {
  command: string;
  task_list: TaskItem[];
  thought: string;
}

export type MessageAction = ActionEnvelope<"message", MessageArgs>;
export type SystemMessageAction = ActionEnvelope<"system", SystemMessageArgs>;
export type CmdRunAction = ActionEnvelope<"run", CmdRunArgs>;
export type IPythonRunCellAction = ActionEnvelope<"run_ipython", IPythonRunCellArgs>;
export type BrowseUrlAction = ActionEnvelope<"browse", BrowseUrlArgs>;
export type BrowseInteractiveAction = ActionEnvelope<"browse_interactive", BrowseInteractiveArgs>;
export type FileReadAction = ActionEnvelope<"read", FileReadArgs>;
export type FileWriteAction = ActionEnvelope<"write", FileWriteArgs>;
export type FileEditAction = ActionEnvelope<"edit", FileEditArgs>;
export type McpAction = ActionEnvelope<"call_tool_mcp", McpArgs>;
export type ThinkAction = ActionEnvelope<"think", ThinkArgs>;
export type FinishAction = ActionEnvelope<"finish", FinishArgs>;
export type RejectAction = ActionEnvelope<"reject", RejectArgs>;
export type DelegateAction = ActionEnvelope<"delegate", DelegateArgs>;
export type RecallAction = ActionEnvelope<"recall", RecallArgs>;
export type ChangeAgentStateAction = ActionEnvelope<"change_agent_state", ChangeAgentStateArgs>;
export type NullAction = ActionEnvelope<"null", EmptyArgs>;
export type CondensationAction = ActionEnvelope<"condensation", CondensationArgs>;
export type CondensationRequestAction = ActionEnvelope<"condensation_request", EmptyArgs>;
export type TaskTrackingAction = ActionEnvelope<"task_tracking", TaskTrackingArgs>;

/** The 20 action classes of events.md §4.1. */
export type AgentAction =
  | MessageAction
  | SystemMessageAction
  | CmdRunAction
  | IPythonRunCellAction
  | BrowseUrlAction
  | BrowseInteractiveAction
  | FileReadAction
  | FileWriteAction
  | FileEditAction
  | McpAction
  | ThinkAction
  | FinishAction
  | RejectAction
  | DelegateAction
  | RecallAction
  | ChangeAgentStateAction
  | NullAction
  | CondensationAction
  | CondensationRequestAction
  | TaskTrackingAction;
export type ActionType = AgentAction["action"];

// --- observation extras (events.md §5) ------------------------------------

export interface CmdOutputMetadata {
  exit_code: number;
  pid: number;
  username: string | null;
  hostname: string | null;
  working_dir: string | null;
  py_interpreter_path: string | null;
  prefix: string;
  suffix: string;
}
export interface CmdOutputExtras {
  command: string;
  metadata: CmdOutputMetadata;
  hidden: boolean;
}
export interface IPythonRunCellExtras {
  code: string;
  image_urls: string[] | null;
}
export interface BrowserOutputExtras {
  url: string;
  trigger_by_action: string;
  screenshot: string;
  screenshot_path: string | null;
  set_of_marks: string;
  error: boolean;
  goal_image_urls: string[];
  open_pages_urls: string[];
  active_page_index: number;
  dom_object: Record<string, unknown>;
  axtree_object: Record<string, unknown>;
  extra_element_properties: Record<string, unknown>;
  last_browser_action: string;
  last_browser_action_error: string;
  focused_element_bid: string;
  filter_visible_only: boolean;
}
export interface FileReadExtras {
  path: string;
  impl_source: FileReadSource;
}
export interface FileWriteExtras {
  path: string;
}
export interface FileEditExtras {
  path: string;
  prev_exist: boolean;
  old_content: string | null;
  new_content: string | null;
  impl_source: FileEditSource;
  diff: string | null;
  _diff_cache: string | null;
}
export interface DelegateExtras {
  outputs: Record<string, unknown>;
}
export interface ErrorExtras {
  error_id: string;
}
export interface AgentStateChangedExtras {
  agent_state: AgentState;
  reason: string;
}
export interface MicroagentKnowledge {
  name: string;
  trigger: string;
  content: string;
}
export interface RecallExtras {
  recall_type: RecallType;
  repo_name: string;
  repo_directory: string;
  repo_branch: string;
  repo_instructions: string;
  runtime_hosts: Record<string, number>;
  additional_agent_instructions: string;
  date: string;
  custom_secrets_descriptions: Record<string, string>;
  conversation_instructions: string;
  working_dir: string;
  microagent_knowledge: MicroagentKnowledge[];
}
export interface McpExtras {
  name: string;
  arguments: Record<string, unknown>;
}
export interface FileDownloadExtras {
  file_path: string;
}
export interface TaskTrackingExtras {
  command: string;
  task_list: TaskItem[];
}
export type EmptyExtras = Record<string, never>;

export type NullObservation = ObservationEnvelope<"null", EmptyExtras>;
export type CmdOutputObservation = ObservationEnvelope<"run", CmdOutputExtras>;
export type IPythonRunCellObservation = ObservationEnvelope<"run_ipython", IPythonRunCellExtras>;
export type BrowserOutputObservation = ObservationEnvelope<"browse", BrowserOutputExtras>;
export type FileReadObservation = ObservationEnvelope<"read", FileReadExtras>;
export type FileWriteObservation = ObservationEnvelope<"write", FileWriteExtras>;
export type FileEditObservation = ObservationEnvelope<"edit", FileEditExtras>;
export type DelegateObservation = ObservationEnvelope<"delegate", DelegateExtras>;
export type SuccessObservation = ObservationEnvelope<"success", EmptyExtras>;
export type ErrorObservation = ObservationEnvelope<"error", ErrorExtras>;
export type AgentStateChangedObservation = ObservationEnvelope<"agent_state_changed", AgentStateChangedExtras>;
export type UserRejectObservation = ObservationEnvelope<"user_rejected", EmptyExtras>;
export type CondenseObservation = ObservationEnvelope<"condense", EmptyExtras>;
export type ThinkObservation = ObservationEnvelope<"think", EmptyExtras>;
export type RecallObservation = ObservationEnvelope<"recall", RecallExtras>;
export type McpObservation = ObservationEnvelope<"mcp", McpExtras>;
export type FileDownloadObservation = ObservationEnvelope<"download", FileDownloadExtras>;
export type TaskTrackingObservation = ObservationEnvelope<"task_tracking", TaskTrackingExtras>;

/** The 18 observation classes of events.md §5. */
export type AgentObservation =
  | NullObservation
  | CmdOutputObservation
  | IPythonRunCellObservation
  | BrowserOutputObservation
  | FileReadObservation
  | FileWriteObservation
  | FileEditObservation
  | DelegateObservation
  | SuccessObservation
  | ErrorObservation
  | AgentStateChangedObservation
  | UserRejectObservation
  | CondenseObservation
  | ThinkObservation
  | RecallObservation
  | McpObservation
  | FileDownloadObservation
  | TaskTrackingObservation;
export type ObservationType = AgentObservation["observation"];

export type OhEvent = AgentAction | AgentObservation;

// ---------------------------------------------------------------------------
// Socket.IO payloads (server-api.md §7)
// ---------------------------------------------------------------------------

/** Runtime progress, LLM retries and errors; also the title update. */
export interface StatusUpdatePayload {
  status_update: true;
  type: "info" | "error";
  id?: string;
  message: string;
  /** Present only on the title update, whose `message` is the conversation id. */
  conversation_title?: string;
}

export interface ErrorPayload {
  error: true;
  message: string;
  error_code?: number;
}

/** Everything that can arrive as `oh_event`. */
export type OhEventPayload = OhEvent | StatusUpdatePayload | ErrorPayload;

/** Refusal data on `connect_error`. */
export interface ConnectErrorData {
  msg_id?: string;
  [key: string]: unknown;
}

/** Query string of the Socket.IO handshake (§7.2). */
export interface SocketQuery {
  conversation_id: string;
  latest_event_id: string;
  providers_set: string;
  session_api_key?: string;
}

/** What the user may send as `oh_user_action` (§7.6). */
export type UserAction =
  | {
      action: "message";
      args: { content: string; image_urls: string[]; file_urls: string[]; timestamp?: string };
    }
  | {
      action: "change_agent_state";
      args: { agent_state: "paused" | "running" | "stopped" | "user_confirmed" | "user_rejected" };
    }
  | { action: "run"; args: { command: string; is_input: boolean; hidden: boolean } };

// ---------------------------------------------------------------------------
// REST models (server-api.md §4 and §6)
// ---------------------------------------------------------------------------

export interface ConversationInfo {
  conversation_id: string;
  title: string;
  last_updated_at: string | null;
  status: ConversationStatus;
  runtime_status: RuntimeStatus | string | null;
  selected_repository: string | null;
  selected_branch: string | null;
  git_provider: ProviderType | null;
  trigger: ConversationTrigger | null;
  num_connections: number;
  url: string | null;
  session_api_key: string | null;
  created_at: string;
  pr_number: number[];
  /** Not part of 0.59's ConversationInfo; shown when a server includes it. */
  accumulated_cost?: number | null;
}

export interface ConversationPage {
  results: ConversationInfo[];
  next_page_id: string | null;
}

/** Query of GET /api/conversations/{id}/events (§6.4). `end_id` is inclusive; `limit` is 0…100. */
export interface EventQuery {
  start_id?: number;
  end_id?: number;
  reverse?: boolean;
  limit?: number;
}

/** GET /api/conversations/{id}/events: stored events exactly as persisted (no source rewrite). */
export interface EventPage {
  events: OhEvent[];
  has_more: boolean;
}

export interface ConversationResponse {
  status: "ok" | "error";
  conversation_id: string;
  message: string | null;
  conversation_status: ConversationStatus | null;
}

/** Body of POST /api/conversations as this UI sends it. */
export interface CreateConversationRequest {
  initial_user_msg?: string;
  repository?: string;
  git_provider?: ProviderType;
  selected_branch?: string;
  suggested_task?: SuggestedTask;
}

/** Error bodies; which style a route uses is given per route in §6. */
export interface StatusErrorBody {
  status: "error";
  message: string | null;
  msg_id?: string | null;
  /** `/start` and `/stop` name the conversation instead of a `msg_id`. */
  conversation_id?: string | null;
}

export interface McpConfig {
  sse_servers: (string | { url: string; api_key?: string | null })[];
  stdio_servers: { name: string; command: string; args: string[]; env: Record<string, string> }[];
  shttp_servers: (string | { url: string; api_key?: string | null; timeout?: number })[];
}

/** Settings fields (§4). Every field is optional on input. */
export interface Settings {
  language: string | null;
  agent: string | null;
  max_iterations: number | null;
  security_analyzer: string | null;
  confirmation_mode: boolean | null;
  llm_model: string | null;
  llm_api_key: string | null;
  llm_base_url: string | null;
  remote_runtime_resource_factor: number | null;
  enable_default_condenser: boolean;
  enable_sound_notifications: boolean;
  enable_proactive_conversation_starters: boolean;
  enable_solvability_analysis: boolean;
  user_consents_to_analytics: boolean | null;
  sandbox_base_container_image: string | null;
  sandbox_runtime_container_image: string | null;
  mcp_config: McpConfig | null;
  search_api_key: string | null;
  sandbox_api_key: string | null;
  max_budget_per_task: number | null;
  condenser_max_size: number | null;
  email: string | null;
  email_verified: boolean | null;
  git_user_name: string | null;
  git_user_email: string | null;
}

/** GET /api/settings: secrets forced to null, plus the derived flags. */
export interface SettingsResponse extends Settings {
  llm_api_key_set: boolean;
  search_api_key_set: boolean;
  provider_tokens_set: Partial<Record<ProviderType, string | null>>;
  secrets_store?: { provider_tokens: Record<string, unknown> };
}

/** POST /api/settings body. */
export type SettingsPayload = Partial<Settings>;

export interface MessageBody {
  message: string;
}

export interface CustomSecret {
  name: string;
  description: string | null;
}
export interface SecretList {
  custom_secrets: CustomSecret[];
}
export interface CreateSecretRequest {
  name: string;
  value: string;
  description?: string;
}
export interface UpdateSecretRequest {
  name: string;
  description?: string;
}

export interface ProviderToken {
  token: string;
  host: string | null;
}
export interface AddGitProvidersRequest {
  provider_tokens: Partial<Record<ProviderType, ProviderToken>>;
}

export interface Repository {
  id: string | number;
  full_name: string;
  git_provider: ProviderType;
  is_public: boolean;
  stargazers_count?: number | null;
  link_header?: string | null;
  pushed_at?: string | null;
  owner_type?: "user" | "organization" | null;
  main_branch?: string | null;
}
export interface Branch {
  name: string;
  commit_sha: string;
  protected: boolean;
  last_push_date?: string | null;
}
/** GET /api/user/suggested-tasks entry; sent back as `suggested_task` to start one. */
export type SuggestedTaskType =
  | "MERGE_CONFLICTS"
  | "FAILING_CHECKS"
  | "UNRESOLVED_COMMENTS"
  | "OPEN_ISSUE"
  | "OPEN_PR"
  | "CREATE_MICROAGENT";
export interface SuggestedTask {
  git_provider: ProviderType;
  task_type: SuggestedTaskType;
  repo: string;
  issue_number: number;
  title: string;
}
export interface BranchPage {
  branches: Branch[];
  has_next_page: boolean;
  current_page: number;
  per_page: number;
  total_count: number | null;
}

export type GitChangeStatus = "M" | "A" | "D" | "R" | "U";
export interface GitChange {
  status: GitChangeStatus;
  path: string;
}
export interface GitDiff {
  modified: string;
  original: string;
}
export interface SelectFileResponse {
  code: string;
}
export interface UploadFilesResponse {
  uploaded_files: string[];
  skipped_files: { name: string; reason: string }[];
}
export interface VSCodeUrlResponse {
  vscode_url: string | null;
  error?: string;
}
/** GET /api/options/vscode-image: whether new Docker sandboxes have VS Code yet. */
export interface VSCodeImageStatus {
  enabled: boolean;
  state: "off" | "not_docker" | "unknown" | "building" | "ready" | "failed";
  message: string | null;
}
export interface WebHostsResponse {
  hosts: Record<string, number> | null;
  error?: string;
}

/** One entry of WebHostsResponse.hosts. */
export interface WebHost {
  url: string;
  port: number;
}
export interface ErrorBody {
  error: string;
}

/** One entry of GET …/microagents (§6.4). */
export interface MicroagentInfo {
  name: string;
  type: "repo" | "knowledge";
  content: string;
  triggers: string[];
  inputs: { name: string; description: string }[];
  tools: string[];
}
export interface MicroagentsResponse {
  microagents: MicroagentInfo[];
}
export interface TrajectoryResponse {
  trajectory: unknown[] | null;
  error?: string;
}
export interface ConversationConfigResponse {
  runtime_id: string | null;
  session_id: string;
}
