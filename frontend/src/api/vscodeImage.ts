import { request } from "./http";
import type { VSCodeImageStatus } from "./types";

/** Whether new Docker sandboxes get VS Code yet (its image variant builds in the background). */
export const getVSCodeImageStatus = (): Promise<VSCodeImageStatus> =>
  request<VSCodeImageStatus>("/api/options/vscode-image");
