import { query, request, requestBlob } from "./http";
import type {
  ConversationConfigResponse,
  ConversationInfo,
  EventPage,
  EventQuery,
  GitChange,
  GitDiff,
  MicroagentInfo,
  MicroagentsResponse,
  SelectFileResponse,
  TrajectoryResponse,
  UploadFilesResponse,
  WebHost,
  VSCodeUrlResponse,
  WebHostsResponse,
} from "./types";

/**
 * Per-conversation routes (server-api.md §6.4). Their base is the
 * conversation's `url` when the server gives one, else /api/conversations/<id>;
 * a per-conversation session key travels as X-Session-API-Key.
 */
export class WorkspaceApi {
  readonly conversationId: string;
  private readonly base: string;
  private readonly headers: Record<string, string>;

  constructor(conversation: Pick<ConversationInfo, "conversation_id" | "url" | "session_api_key">) {
    this.conversationId = conversation.conversation_id;
    this.base = conversation.url || `/api/conversations/${encodeURIComponent(conversation.conversation_id)}`;
    this.headers = conversation.session_api_key ? { "X-Session-API-Key": conversation.session_api_key } : {};
  }

  /** Stored events; served from the file store, so it works while the sandbox is down. */
  events(params: EventQuery, signal?: AbortSignal): Promise<EventPage> {
    const search = query({
      start_id: params.start_id,
      end_id: params.end_id,
      reverse: params.reverse ? "true" : undefined,
      limit: params.limit,
    });
    return request<EventPage>(`${this.base}/events${search}`, { headers: this.headers, signal });
  }

  listFiles(path?: string): Promise<string[]> {
    return request<string[]>(`${this.base}/list-files${query({ path })}`, { headers: this.headers });
  }

  async selectFile(file: string): Promise<string> {
    const body = await request<SelectFileResponse>(`${this.base}/select-file${query({ file })}`, {
      headers: this.headers,
    });
    return body.code;
  }

  uploadFiles(files: readonly File[]): Promise<UploadFilesResponse> {
    const form = new FormData();
    for (const file of files) form.append("files", file, file.name);
    return request<UploadFilesResponse>(`${this.base}/upload-files`, {
      method: "POST",
      form,
      headers: this.headers,
    });
  }

  downloadWorkspace(): Promise<Blob> {
    return requestBlob(`${this.base}/zip-directory`, { headers: this.headers });
  }

  gitChanges(): Promise<GitChange[]> {
    return request<GitChange[]>(`${this.base}/git/changes`, { headers: this.headers });
  }

  gitDiff(path: string): Promise<GitDiff> {
    return request<GitDiff>(`${this.base}/git/diff${query({ path })}`, { headers: this.headers });
  }

  /**
   * The sandbox's app URLs and ports. With `live`, only those where something
   * answers (our server probes them; the reference's answer lists every reserved port).
   */
  async webHosts(options: { live?: boolean; signal?: AbortSignal } = {}): Promise<WebHost[]> {
    const body = await request<WebHostsResponse>(
      `${this.base}/web-hosts${query({ live: options.live ? "true" : undefined })}`,
      { headers: this.headers, signal: options.signal },
    );
    return Object.entries(body.hosts ?? {}).map(([url, port]) => ({ url, port }));
  }

  /** The sandbox's VS Code URL (with its token), or null when VS Code is not enabled. */
  async vscodeUrl(): Promise<string | null> {
    const body = await request<VSCodeUrlResponse>(`${this.base}/vscode-url`, { headers: this.headers });
    return body.vscode_url;
  }

  /** Every non-hidden event as the server exports it (screenshots and DOM trees removed). */
  async trajectory(): Promise<unknown[]> {
    const body = await request<TrajectoryResponse>(`${this.base}/trajectory`, { headers: this.headers });
    return body.trajectory ?? [];
  }

  /** The microagents the agent loaded (needs a running loop). */
  async microagents(signal?: AbortSignal): Promise<MicroagentInfo[]> {
    const body = await request<MicroagentsResponse>(`${this.base}/microagents`, { headers: this.headers, signal });
    return body.microagents;
  }

  /** The sandbox's runtime id (null for sandboxes the server names by conversation). */
  config(signal?: AbortSignal): Promise<ConversationConfigResponse> {
    return request<ConversationConfigResponse>(`${this.base}/config`, { headers: this.headers, signal });
  }
}
