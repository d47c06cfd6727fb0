/**
 * The one place that talks HTTP. Routes answer errors in several body styles
 * (server-api.md conventions: `detail`, `error`, `status`, bare string), so
 * ApiError normalises them into a readable message plus the optional msg_id.
 */

export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly msgId: string | null;

  constructor(status: number, body: unknown) {
    super(messageFromBody(status, body));
    this.name = "ApiError";
    this.status = status;
    this.body = body;
    this.msgId = isRecord(body) && typeof body.msg_id === "string" ? body.msg_id : null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function messageFromBody(status: number, body: unknown): string {
  if (typeof body === "string" && body.trim()) return body;
  if (isRecord(body)) {
    for (const key of ["message", "error", "detail"] as const) {
      const value = body[key];
      if (typeof value === "string" && value) return value;
      if (Array.isArray(value) && value.length > 0) {
        // FastAPI validation errors: [{loc, msg, ...}]
        return value
          .map((item) => (isRecord(item) && typeof item.msg === "string" ? item.msg : String(item)))
          .join("; ");
      }
    }
  }
  return `Request failed with status ${status}`;
}

export interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as multipart/form-data. */
  form?: FormData;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function send(path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.form) {
    body = options.form;
  }
  return fetch(path, {
    method: options.method ?? "GET",
    headers,
    body,
    signal: options.signal,
    credentials: "same-origin",
  });
}

/** JSON request; throws ApiError on a non-2xx status. */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  const body = await readBody(response);
  if (!response.ok) throw new ApiError(response.status, body);
  return body as T;
}

/** Binary download; throws ApiError on a non-2xx status. */
export async function requestBlob(path: string, options: RequestOptions = {}): Promise<Blob> {
  const response = await send(path, options);
  if (!response.ok) throw new ApiError(response.status, await readBody(response));
  return response.blob();
}

export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
