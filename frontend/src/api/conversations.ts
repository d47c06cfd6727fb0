import { query, request } from "./http";
import type {
  ConversationInfo,
  ConversationPage,
  ConversationResponse,
  CreateConversationRequest,
  ProviderType,
} from "./types";

const BASE = "/api/conversations";

export function listConversations(pageId?: string | null, limit = 20): Promise<ConversationPage> {
  return request<ConversationPage>(`${BASE}${query({ limit, page_id: pageId })}`);
}

/** Resolves to null when the conversation does not exist (the route answers 200 `null`). */
export function getConversation(id: string): Promise<ConversationInfo | null> {
  return request<ConversationInfo | null>(`${BASE}/${encodeURIComponent(id)}`);
}

export function createConversation(body: CreateConversationRequest): Promise<ConversationResponse> {
  return request<ConversationResponse>(BASE, { method: "POST", json: body });
}

export function renameConversation(id: string, title: string): Promise<boolean> {
  return request<boolean>(`${BASE}/${encodeURIComponent(id)}`, { method: "PATCH", json: { title } });
}

export function deleteConversation(id: string): Promise<boolean> {
  return request<boolean>(`${BASE}/${encodeURIComponent(id)}`, { method: "DELETE" });
}

export function startConversation(id: string, providersSet: ProviderType[]): Promise<ConversationResponse> {
  return request<ConversationResponse>(`${BASE}/${encodeURIComponent(id)}/start`, {
    method: "POST",
    json: { providers_set: providersSet },
  });
}

export function stopConversation(id: string): Promise<ConversationResponse> {
  return request<ConversationResponse>(`${BASE}/${encodeURIComponent(id)}/stop`, { method: "POST" });
}
