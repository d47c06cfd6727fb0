import { useEffect, useState } from "react";
import { getAgents, getModels, getSecurityAnalyzers } from "../../api/settings";

export interface SettingsOptions {
  models: string[];
  agents: string[];
  analyzers: string[];
}

/** The three option lists; each falls back to empty if its route fails. */
export function useSettingsOptions(): SettingsOptions {
  const [options, setOptions] = useState<SettingsOptions>({ models: [], agents: [], analyzers: [] });
  useEffect(() => {
    let cancelled = false;
    const safe = (p: Promise<string[]>) => p.catch(() => [] as string[]);
    void Promise.all([safe(getModels()), safe(getAgents()), safe(getSecurityAnalyzers())]).then(
      ([models, agents, analyzers]) => {
        if (!cancelled) setOptions({ models, agents, analyzers });
      },
    );
    return () => {
      cancelled = true;
    };
  }, []);
  return options;
}
