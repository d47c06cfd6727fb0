/** File explorer and viewer for the sandbox workspace, with upload and zip download. */
import { useCallback, useEffect, useRef, useState } from "react";
import type { WorkspaceApi } from "../../../api/workspace";
import { useToast } from "../../../hooks/ToastContext";
import { FileTree } from "./FileTree";
import { FileViewer } from "./FileViewer";

export function FilesTab({ workspace, changeId }: { workspace: WorkspaceApi; changeId: number }) {
  const toast = useToast();
  const [selected, setSelected] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [busy, setBusy] = useState(false);
  const upload = useRef<HTMLInputElement>(null);

  // Re-list when the agent may have changed files (debounced: bursts of output).
  useEffect(() => {
    if (changeId < 0) return;
    const timer = setTimeout(() => setVersion((v) => v + 1), 500);
    return () => clearTimeout(timer);
  }, [changeId]);

  const refresh = useCallback(() => setVersion((v) => v + 1), []);

  async function onUpload(files: File[]) {
    if (!files.length) return;
    setBusy(true);
    try {
      const result = await workspace.uploadFiles(files);
      const skipped = result.skipped_files.map((s) => `${s.name} (${s.reason})`);
      toast(
        `Uploaded ${result.uploaded_files.length} file(s)${skipped.length ? `; skipped ${skipped.join(", ")}` : ""}`,
        skipped.length ? "error" : "success",
      );
      refresh();
    } catch (reason) {
      toast(`Upload failed: ${reason instanceof Error ? reason.message : String(reason)}`, "error");
    } finally {
      setBusy(false);
    }
  }

  async function onDownload() {
    setBusy(true);
    try {
      const blob = await workspace.downloadWorkspace();
      const url = URL.createObjectURL(blob);
      const link = document.createElement("a");
      link.href = url;
      link.download = "workspace.zip";
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (reason) {
      toast(`Download failed: ${reason instanceof Error ? reason.message : String(reason)}`, "error");
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="files-tab">
      <div className="toolbar" role="toolbar" aria-label="Workspace files">
        <button type="button" className="button button--small" onClick={refresh} aria-label="Refresh files" data-testid="refresh-files">
          Refresh
        </button>
        <button
          type="button"
          className="button button--small"
          disabled={busy}
          onClick={() => upload.current?.click()}
          aria-label="Upload files to the workspace"
          data-testid="upload-files"
        >
          Upload
        </button>
        <input
          ref={upload}
          type="file"
          multiple
          hidden
          data-testid="upload-files-input"
          aria-label="Files to upload"
          onChange={(e) => {
            void onUpload(Array.from(e.target.files ?? []));
            e.target.value = "";
          }}
        />
        <button
          type="button"
          className="button button--small"
          disabled={busy}
          onClick={() => void onDownload()}
          aria-label="Download the workspace as a zip file"
          data-testid="download-workspace"
        >
          Download .zip
        </button>
      </div>
      <div className="files-tab__body">
        <FileTree workspace={workspace} version={version} selected={selected} onSelect={setSelected} />
        <FileViewer workspace={workspace} path={selected} version={version} />
      </div>
    </div>
  );
}
