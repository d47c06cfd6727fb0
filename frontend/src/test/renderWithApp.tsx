import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { SettingsProvider } from "../hooks/SettingsContext";
import { ToastProvider } from "../hooks/ToastContext";

/** Renders `ui` at `path` (matched by `pattern`) inside the app's providers and a router. */
export function renderWithApp(ui: ReactNode, path = "/", pattern = "*") {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <ToastProvider>
        <SettingsProvider>
          <Routes>
            <Route path={pattern} element={ui} />
          </Routes>
        </SettingsProvider>
      </ToastProvider>
    </MemoryRouter>,
  );
}
