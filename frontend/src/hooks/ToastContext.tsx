/** Transient messages shown in a polite live region at the corner of the screen. */
import { useTranslation } from "../i18n/useTranslation";
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from "react";

export type ToastKind = "info" | "error" | "success";
interface Toast {
  key: number;
  kind: ToastKind;
  message: string;
}

type ShowToast = (message: string, kind?: ToastKind) => void;
const ToastContext = createContext<ShowToast>(() => undefined);

const TOAST_MS = 6000;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextKey = useRef(1);
  const { t } = useTranslation();

  const dismiss = useCallback((key: number) => setToasts((list) => list.filter((t) => t.key !== key)), []);
  const show = useCallback<ShowToast>(
    (message, kind = "info") => {
      const key = nextKey.current++;
      setToasts((list) => [...list.slice(-3), { key, kind, message }]);
      setTimeout(() => dismiss(key), TOAST_MS);
    },
    [dismiss],
  );

  const value = useMemo(() => show, [show]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" role="status" aria-live="polite" data-testid="toasts">
        {toasts.map((toast) => (
          <div key={toast.key} className={`toast toast--${toast.kind}`}>
            <span>{toast.message}</span>
            <button type="button" className="icon-button" aria-label={t("dismiss")} onClick={() => dismiss(toast.key)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast(): ShowToast {
  return useContext(ToastContext);
}
