import { query, request } from "./http";
import type { Branch, BranchPage, ProviderType, Repository, SuggestedTask } from "./types";

/** Per page when listing; the providers cap pages at 100. */
export const PAGE_SIZE = 100;

export function getRepositories(provider: ProviderType, page = 1): Promise<Repository[]> {
  return request<Repository[]>(
    `/api/user/repositories${query({ sort: "pushed", selected_provider: provider, page, per_page: PAGE_SIZE })}`,
  );
}

/** Server-side search; a pasted repository URL is resolved to that repository by the server. */
export function searchRepositories(text: string, provider: ProviderType, perPage = 20): Promise<Repository[]> {
  return request<Repository[]>(
    `/api/user/search/repositories${query({ query: text, selected_provider: provider, per_page: perPage })}`,
  );
}

export function getBranches(repository: string, page = 1): Promise<BranchPage> {
  return request<BranchPage>(`/api/user/repository/branches${query({ repository, page, per_page: PAGE_SIZE })}`);
}

export function searchBranches(repository: string, text: string, provider: ProviderType): Promise<Branch[]> {
  return request<Branch[]>(
    `/api/user/search/branches${query({ repository, query: text, selected_provider: provider, per_page: 30 })}`,
  );
}

export function getSuggestedTasks(): Promise<SuggestedTask[]> {
  return request<SuggestedTask[]>("/api/user/suggested-tasks");
}
