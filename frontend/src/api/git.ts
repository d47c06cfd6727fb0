import { query, request } from "./http";
import type { BranchPage, ProviderType, Repository } from "./types";

export function getRepositories(provider: ProviderType, page = 1): Promise<Repository[]> {
  return request<Repository[]>(
    `/api/user/repositories${query({ sort: "pushed", selected_provider: provider, page, per_page: 100 })}`,
  );
}

export function getBranches(repository: string, page = 1): Promise<BranchPage> {
  return request<BranchPage>(`/api/user/repository/branches${query({ repository, page, per_page: 100 })}`);
}
