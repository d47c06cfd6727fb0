/**
 * The message box: Enter sends, Shift+Enter adds a line. Images travel as
 * data URLs in image_urls; other files are uploaded to the workspace first
 * and their paths go in file_urls (server-api.md §9.7).
 */
import { useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import type { UserAction } from "../../api/types";
import type { WorkspaceApi } from "../../api/workspace";

interface Props {
  disabled: boolean;
  workspace: WorkspaceApi | null;
  onSend(action: UserAction): boolean;
}

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error("Could not read the file"));
    reader.readAsDataURL(file);
  });
}

export function messageAction(content: string, imageUrls: string[] = [], fileUrls: string[] = []): UserAction {
  return { action: "message", args: { content, image_urls: imageUrls, file_urls: fileUrls } };
}

export function ChatInput({ disabled, workspace, onSend }: Props) {
  const [text, setText] = useState("");
  const [files, setFiles] = useState<File[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const canSend = !disabled && !busy && (text.trim().length > 0 || files.length > 0);

  async function send() {
    if (!canSend) return;
    setBusy(true);
    setError(null);
    try {
      const images = files.filter((f) => f.type.startsWith("image/"));
      const others = files.filter((f) => !f.type.startsWith("image/"));
      const imageUrls = await Promise.all(images.map(readAsDataUrl));
      let fileUrls: string[] = [];
      if (others.length > 0 && workspace) {
        const result = await workspace.uploadFiles(others);
        fileUrls = result.uploaded_files;
        if (result.skipped_files.length) {
          setError(`Skipped: ${result.skipped_files.map((s) => `${s.name} (${s.reason})`).join(", ")}`);
        }
      }
      if (onSend(messageAction(text.trim(), imageUrls, fileUrls))) {
        setText("");
        setFiles([]);
      } else {
        setError("Not connected; the message was not sent.");
      }
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
    } finally {
      setBusy(false);
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void send();
  }

  return (
    <form className="chat-input" onSubmit={onSubmit}>
      {files.length > 0 && (
        <ul className="chat-input__files" aria-label="Attached files">
          {files.map((f, i) => (
            <li key={`${f.name}-${i}`}>
              {f.name}
              <button
                type="button"
                className="icon-button"
                aria-label={`Remove ${f.name}`}
                onClick={() => setFiles((list) => list.filter((_, j) => j !== i))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="chat-input__row">
        <button
          type="button"
          className="icon-button chat-input__attach"
          aria-label="Attach files"
          title="Attach files"
          disabled={disabled}
          onClick={() => fileInput.current?.click()}
        >
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
            <path
              d="M16.5 6.5 8.4 14.6a2 2 0 0 0 2.8 2.8l8.1-8.1a4 4 0 0 0-5.6-5.6L5.4 12A6 6 0 0 0 13.9 20.5l6.6-6.6"
              fill="none"
              stroke="currentColor"
              strokeWidth="1.8"
              strokeLinecap="round"
            />
          </svg>
        </button>
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          aria-hidden="true"
          tabIndex={-1}
          onChange={(e) => {
            const chosen = Array.from(e.target.files ?? []);
            setFiles((list) => [...list, ...chosen]);
            e.target.value = "";
          }}
        />
        <label htmlFor="chat-input" className="visually-hidden">
          Message the agent
        </label>
        <textarea
          id="chat-input"
          data-testid="chat-input"
          className="chat-input__text"
          rows={2}
          placeholder={disabled ? "Waiting for the connection…" : "Message the agent (Enter to send, Shift+Enter for a new line)"}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <button
          type="submit"
          className="button button--primary"
          data-testid="send-button"
          aria-label="Send message"
          disabled={!canSend}
        >
          Send
        </button>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
