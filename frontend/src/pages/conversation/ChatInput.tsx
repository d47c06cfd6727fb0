/**
 * The message box: Enter sends, Shift+Enter adds a line, and the box grows with
 * its text. Files come from the clip button, a paste or a drop; images travel as
 * data URLs in image_urls, other files are uploaded to the workspace first and
 * their paths go in file_urls and, for the agent, in the text (server-api.md §9.7). Sizes are checked on the way
 * in (attachments.ts), so an oversize file is refused before anything is sent.
 */
import {
  useLayoutEffect,
  useRef,
  useState,
  type ClipboardEvent,
  type DragEvent,
  type FormEvent,
  type KeyboardEvent,
} from "react";
import { useTranslation } from "../../i18n/useTranslation";
import type { UserAction } from "../../api/types";
import type { WorkspaceApi } from "../../api/workspace";
import { AttachmentList } from "./AttachmentList";
import { admitFiles, isImage, withFilePaths } from "./attachments";

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

function hasFiles(transfer: DataTransfer | null): boolean {
  return Boolean(transfer && Array.from(transfer.types).includes("Files"));
}

export function ChatInput({ disabled, workspace, onSend }: Props) {
  const { t } = useTranslation("conversation");
  const [text, setText] = useState("");
  const [files, setFiles] = useState<File[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  const canSend = !disabled && !busy && (text.trim().length > 0 || files.length > 0);

  // Grow with the text up to the CSS max-height, then scroll.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${el.scrollHeight + (el.offsetHeight - el.clientHeight)}px`;
  }, [text]);

  function attach(added: File[]) {
    if (added.length === 0) return;
    const { accepted, refusal } = admitFiles(files, added, new TextEncoder().encode(text).length);
    if (accepted.length) setFiles((list) => [...list, ...accepted]);
    setError(refusal);
  }

  async function send() {
    if (!canSend) return;
    const { refusal } = admitFiles([], files, new TextEncoder().encode(text).length);
    if (refusal) {
      setError(refusal);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const imageUrls = await Promise.all(files.filter(isImage).map(readAsDataUrl));
      const others = files.filter((f) => !isImage(f));
      let fileUrls: string[] = [];
      if (others.length > 0) {
        if (!workspace) throw new Error(t("chat.uploadNeedsStart"));
        const result = await workspace.uploadFiles(others);
        fileUrls = result.uploaded_files;
        if (result.skipped_files.length) {
          setError(t("chat.skipped", { files: result.skipped_files.map((s) => `${s.name} (${s.reason})`).join(", ") }));
        }
      }
      if (onSend(messageAction(withFilePaths(text.trim(), fileUrls), imageUrls, fileUrls))) {
        setText("");
        setFiles([]);
      } else {
        setError(t("chat.notConnected"));
      }
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
    } finally {
      setBusy(false);
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    // Ctrl/Cmd+Enter is left to the confirmation shortcut (ConfirmationBar).
    if (event.key !== "Enter" || event.shiftKey || event.ctrlKey || event.metaKey) return;
    if (event.nativeEvent.isComposing) return;
    event.preventDefault();
    void send();
  }

  function onPaste(event: ClipboardEvent<HTMLTextAreaElement>) {
    const pasted = Array.from(event.clipboardData.files);
    if (pasted.length === 0) return;
    // A copied screenshot also carries a text form (a name or HTML): keep only the file.
    event.preventDefault();
    attach(pasted);
  }

  function onDragOver(event: DragEvent<HTMLFormElement>) {
    if (disabled || !hasFiles(event.dataTransfer)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    setDragging(true);
  }

  function onDrop(event: DragEvent<HTMLFormElement>) {
    setDragging(false);
    if (disabled || !hasFiles(event.dataTransfer)) return;
    event.preventDefault();
    attach(Array.from(event.dataTransfer.files));
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void send();
  }

  return (
    <form
      className={`chat-input${dragging ? " chat-input--dragging" : ""}`}
      data-testid="chat-form"
      onSubmit={onSubmit}
      onDragOver={onDragOver}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <AttachmentList files={files} onRemove={(i) => setFiles((list) => list.filter((_, j) => j !== i))} />
      <div className="chat-input__row">
        <button
          type="button"
          className="icon-button chat-input__attach"
          aria-label={t("chat.attach")}
          title={t("chat.attachHint")}
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
          data-testid="chat-file-input"
          onChange={(e) => {
            attach(Array.from(e.target.files ?? []));
            e.target.value = "";
          }}
        />
        <label htmlFor="chat-input" className="visually-hidden">
          {t("chat.label")}
        </label>
        <textarea
          ref={box}
          id="chat-input"
          dir="auto"
          data-testid="chat-input"
          className="chat-input__text"
          rows={1}
          placeholder={disabled ? t("chat.waitingPlaceholder") : t("chat.placeholder")}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        <button
          type="submit"
          className="button button--primary"
          data-testid="send-button"
          aria-label={t("chat.sendLabel")}
          disabled={!canSend}
        >
          {busy ? t("chat.sending") : t("chat.send")}
        </button>
      </div>
      {error && (
        <p className="form-error" role="alert" data-testid="chat-input-error">
          {error}
        </p>
      )}
    </form>
  );
}
