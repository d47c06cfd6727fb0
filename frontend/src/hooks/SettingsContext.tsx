/**
 * The stored settings, loaded once at boot and shared by every page
 * (home needs provider_tokens_set, the conversation page needs providers).
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { getSettings } from "../api/settings";
import type { ProviderType, SettingsResponse } from "../api/types";

export interface SettingsContextValue {
  /** null when nothing is stored (first run). */
  settings: SettingsResponse | null;
  loaded: boolean;
  error: Error | null;
  reload(): Promise<void>;
}

const SettingsContext = createContext<SettingsContextValue | null>(null);

export function SettingsProvider({ children }: { children: ReactNode }) {
  const [settings, setSettings] = useState<SettingsResponse | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<Error | null>(null);

  const reload = useCallback(async () => {
    try {
      setSettings(await getSettings());
      setError(null);
    } catch (reason) {
      setError(reason instanceof Error ? reason : new Error(String(reason)));
    } finally {
      setLoaded(true);
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload]);

  const value = useMemo(() => ({ settings, loaded, error, reload }), [settings, loaded, error, reload]);
  return <SettingsContext.Provider value={value}>{children}</SettingsContext.Provider>;
}

export function useSettings(): SettingsContextValue {
  const value = useContext(SettingsContext);
  if (!value) throw new Error("useSettings must be used inside <SettingsProvider>");
  return value;
}

/** Providers with a stored token (keys of provider_tokens_set). */
export function providersOf(settings: SettingsResponse | null): ProviderType[] {
  return Object.keys(settings?.provider_tokens_set ?? {}) as ProviderType[];
}
