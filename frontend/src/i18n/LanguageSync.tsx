import { useEffect } from "react";
import { useSettings } from "../hooks/SettingsContext";
import { applyLanguage } from "./index";

/** Follows the stored `language` setting: at boot, and at once after the user saves another. */
export function LanguageSync(): null {
  const { settings } = useSettings();
  const stored = settings?.language;
  useEffect(() => {
    void applyLanguage(stored);
  }, [stored]);
  return null;
}
