/** The files waiting in the chat box: a thumbnail for each image, the name for others. */
import { useEffect, useState } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import { formatBytes, isImage } from "./attachments";

function Thumbnail({ file }: { file: File }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    // jsdom and very old browsers have no object URLs; the name is shown instead.
    if (typeof URL.createObjectURL !== "function") return;
    const next = URL.createObjectURL(file);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [file]);
  return url ? <img className="chat-input__thumb" src={url} alt="" /> : null;
}

export function AttachmentList({ files, onRemove }: { files: readonly File[]; onRemove(index: number): void }) {
  const { t } = useTranslation("conversation");
  if (files.length === 0) return null;
  return (
    <ul className="chat-input__files" aria-label={t("chat.attached")} data-testid="chat-attachments">
      {files.map((file, i) => (
        <li key={`${file.name}-${file.size}-${i}`} data-testid="chat-attachment" title={`${file.name} (${formatBytes(file.size)})`}>
          {isImage(file) && <Thumbnail file={file} />}
          <span className="chat-input__file-name">{file.name}</span>
          <button type="button" className="icon-button" aria-label={t("chat.removeFile", { name: file.name })} onClick={() => onRemove(i)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
