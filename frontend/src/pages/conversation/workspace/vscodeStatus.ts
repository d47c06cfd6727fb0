import type { VSCodeImageStatus } from "../../../api/types";

/** What the VS Code tab says about a sandbox without VS Code, and whether to ask again. */
export interface VSCodeNotice {
  text: string;
  detail: string | null;
  poll: boolean;
}

export function vscodeNotice(status: VSCodeImageStatus | undefined): VSCodeNotice {
  switch (status?.state) {
    case "off":
      return {
        text: "VS Code is turned off on this server (enable_vscode = false in the [sandbox] configuration).",
        detail: null,
        poll: false,
      };
    case "building":
      return {
        text: "VS Code is being prepared in the background. Conversations started once it is ready have VS Code; this one started without it.",
        detail: status.message,
        poll: true,
      };
    case "ready":
      return {
        text: "VS Code is ready now, but this sandbox started before it was. Start a new conversation to use VS Code.",
        detail: null,
        poll: false,
      };
    case "failed":
      return {
        text: "VS Code could not be prepared on this server; see the server log.",
        detail: status.message,
        poll: false,
      };
    case "unknown":
      return {
        text: "VS Code is not running in this sandbox yet.",
        detail: null,
        poll: true,
      };
    default:
      return { text: "VS Code is not available in this sandbox.", detail: null, poll: false };
  }
}
