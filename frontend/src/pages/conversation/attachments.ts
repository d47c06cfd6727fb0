/**
 * What the chat box may send, checked before anything leaves the browser, against
 * the server's default limits (openhands/server/server_config.py):
 * - images travel as data URLs inside the Socket.IO message, which the server caps
 *   at `max_upload_bytes` (4 MiB) — base64 makes each image a third larger;
 * - other files go through POST /upload-files, whose body is capped at
 *   `max_upload_body_bytes` (64 MiB); the server may refuse smaller files too
 *   (`file_uploads_max_file_size_mb`), and says which in `skipped_files`.
 */
export const MESSAGE_LIMIT_BYTES = 4 * 1024 * 1024;
export const UPLOAD_LIMIT_BYTES = 64 * 1024 * 1024;
// Room kept in a message for its text, the JSON around it and the socket framing.
const MESSAGE_OVERHEAD_BYTES = 16 * 1024;

export function isImage(file: Pick<File, "type">): boolean {
  return file.type.startsWith("image/");
}

/** Size of `file` once it is a data URL. */
export function dataUrlBytes(file: Pick<File, "size" | "type">): number {
  return `data:${file.type};base64,`.length + Math.ceil(file.size / 3) * 4;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Splits `added` into the files that fit beside `current` and a sentence naming
 * those that do not (null when all fit). `textBytes` is the message text's size.
 */
export function admitFiles(
  current: readonly File[],
  added: readonly File[],
  textBytes = 0,
): { accepted: File[]; refusal: string | null } {
  let imageBytes = current.filter(isImage).reduce((sum, f) => sum + dataUrlBytes(f), 0);
  let uploadBytes = current.filter((f) => !isImage(f)).reduce((sum, f) => sum + f.size, 0);
  const imageBudget = MESSAGE_LIMIT_BYTES - MESSAGE_OVERHEAD_BYTES - textBytes;
  const accepted: File[] = [];
  const refused: string[] = [];
  for (const file of added) {
    if (isImage(file)) {
      if (imageBytes + dataUrlBytes(file) > imageBudget) {
        refused.push(
          `${file.name} (${formatBytes(file.size)}): images go inside the message, and the server accepts at most ${formatBytes(MESSAGE_LIMIT_BYTES)} per message once encoded`,
        );
        continue;
      }
      imageBytes += dataUrlBytes(file);
    } else {
      if (uploadBytes + file.size > UPLOAD_LIMIT_BYTES) {
        refused.push(
          `${file.name} (${formatBytes(file.size)}): the server accepts at most ${formatBytes(UPLOAD_LIMIT_BYTES)} of files per upload`,
        );
        continue;
      }
      uploadBytes += file.size;
    }
    accepted.push(file);
  }
  return { accepted, refusal: refused.length ? `Too large to send: ${refused.join("; ")}.` : null };
}

/**
 * Uploaded files are named in the message text too, so the agent reads where they are:
 * the content gets "\n\nNEW FILES ADDED: <path>\n\n<path>…" (as 0.59's UI sends it), and
 * views show the text before that marker, the paths being listed as attachments.
 */
export const FILES_ADDED_TITLE = "NEW FILES ADDED";

export function withFilePaths(content: string, paths: readonly string[]): string {
  return paths.length ? `${content}\n\n${FILES_ADDED_TITLE}: ${paths.join("\n\n")}` : content;
}

export function withoutFilePaths(content: string, paths: readonly string[] | null): string {
  if (!paths?.length) return content;
  const at = content.lastIndexOf(`${FILES_ADDED_TITLE}:`);
  return at === -1 ? content : content.slice(0, at).trimEnd();
}
