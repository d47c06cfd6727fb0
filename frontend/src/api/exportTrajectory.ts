/** Saves a conversation's trajectory (GET …/trajectory) as a JSON file. */
import type { ConversationInfo } from "./types";
import { WorkspaceApi } from "./workspace";

export function trajectoryFileName(conversationId: string): string {
  return `trajectory-${conversationId}.json`;
}

export async function exportTrajectory(
  conversation: Pick<ConversationInfo, "conversation_id" | "url" | "session_api_key">,
): Promise<void> {
  const trajectory = await new WorkspaceApi(conversation).trajectory();
  const blob = new Blob([JSON.stringify(trajectory, null, 2)], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = trajectoryFileName(conversation.conversation_id);
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the blob to the browser's download; the URL can go a moment later.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
