/**
 * Web links to a conversation's repository and branch at its provider, and the
 * requests the repository bar sends the agent. As in 0.59, Pull / Push /
 * Create-PR are not API calls: the agent, which has the clone and the token in
 * its sandbox, is asked to do them.
 */
import type { ProviderType } from "../api/types";

const DEFAULT_HOSTS: Record<ProviderType, string> = {
  github: "github.com",
  gitlab: "gitlab.com",
  bitbucket: "bitbucket.org",
  enterprise_sso: "github.com",
};

const PROVIDER_NAMES: Record<ProviderType, string> = {
  github: "GitHub",
  gitlab: "GitLab",
  bitbucket: "Bitbucket",
  enterprise_sso: "GitHub",
};

export function providerName(provider: ProviderType | null | undefined): string {
  return provider ? PROVIDER_NAMES[provider] : "the git provider";
}

/** `host` is the custom host stored with the token (provider_tokens_set), if any. */
function baseUrl(provider: ProviderType, host: string | null | undefined): string {
  const chosen = (host ?? "").trim().replace(/\/+$/, "") || DEFAULT_HOSTS[provider];
  return /^https?:\/\//i.test(chosen) ? chosen : `https://${chosen}`;
}

function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

export function repositoryUrl(provider: ProviderType, repository: string, host?: string | null): string {
  return `${baseUrl(provider, host)}/${encodePath(repository)}`;
}

export function branchUrl(provider: ProviderType, repository: string, branch: string, host?: string | null): string {
  const repo = repositoryUrl(provider, repository, host);
  const ref = encodePath(branch);
  if (provider === "gitlab") return `${repo}/-/tree/${ref}`;
  if (provider === "bitbucket") return `${repo}/src/${ref}`;
  return `${repo}/tree/${ref}`;
}

/** "merge request" on GitLab, "pull request" elsewhere. */
export function changeRequestName(provider: ProviderType | null | undefined): string {
  return provider === "gitlab" ? "merge request" : "pull request";
}

export type GitRequest = "pull" | "push" | "pr";

/** The message the agent gets for each action (our wording; the intent is 0.59's). */
export function gitRequestMessage(kind: GitRequest, provider: ProviderType | null | undefined): string {
  const where = providerName(provider);
  const pr = changeRequestName(provider);
  switch (kind) {
    case "pull":
      return "Pull the latest changes of the current branch from the remote repository into the workspace.";
    case "push":
      return (
        `Push my changes to a branch on ${where}, without opening a ${pr}. ` +
        "If the current branch is a default one (main, master, deploy or similar), first create a branch " +
        "whose name describes the changes; otherwise push to the branch you are on."
      );
    case "pr":
      return (
        `Push my changes to ${where} and open a ${pr} for them. ` +
        "If the current branch is a default one (main, master, deploy or similar), first create a branch " +
        `whose name describes the changes; otherwise use the branch you are on. Follow the repository's ${pr} ` +
        "template for the description if it has one."
      );
  }
}
