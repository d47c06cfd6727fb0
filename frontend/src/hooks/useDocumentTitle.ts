import { useEffect } from "react";

export const APP_TITLE = "OpenHands";

/** The browser tab shows `title` while the component is mounted (the app's name when null). */
export function useDocumentTitle(title: string | null): void {
  useEffect(() => {
    document.title = title ?? APP_TITLE;
    return () => {
      document.title = APP_TITLE;
    };
  }, [title]);
}
