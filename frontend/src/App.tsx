import { lazy, Suspense } from "react";
import { useTranslation } from "./i18n/useTranslation";
import { BrowserRouter, Route, Routes } from "react-router-dom";
import { Layout } from "./components/Layout";
import { SettingsProvider } from "./hooks/SettingsContext";
import { ToastProvider } from "./hooks/ToastContext";
import { withNamespace } from "./i18n";
import { LanguageSync } from "./i18n/LanguageSync";
import { HomePage } from "./pages/home/HomePage";
import { NotFoundPage } from "./pages/NotFoundPage";

// The conversation route pulls in socket.io, xterm, markdown and diff code;
// settings is rarely visited. Both load on demand.
const ConversationPage = lazy(() => withNamespace(import("./pages/conversation/ConversationPage"), "conversation"));
// A page's own texts arrive with its code, so it never shows before its words.
const SettingsPage = lazy(() => withNamespace(import("./pages/settings/SettingsPage"), "settings"));
const OverviewPage = lazy(() => withNamespace(import("./pages/overview/OverviewPage"), "overview"));

function PageLoading() {
  const { t } = useTranslation();
  return (
    <div className="page-loading" role="status">
      {t("loading")}
    </div>
  );
}

export function App() {
  return (
    <BrowserRouter>
      <ToastProvider>
        <SettingsProvider>
          <LanguageSync />
          <Routes>
            <Route element={<Layout />}>
              <Route index element={<HomePage />} />
              <Route
                path="conversations/:conversationId"
                element={
                  <Suspense fallback={<PageLoading />}>
                    <ConversationPage />
                  </Suspense>
                }
              />
              <Route
                path="agents"
                element={
                  <Suspense fallback={<PageLoading />}>
                    <OverviewPage />
                  </Suspense>
                }
              />
              <Route
                path="settings/*"
                element={
                  <Suspense fallback={<PageLoading />}>
                    <SettingsPage />
                  </Suspense>
                }
              />
              <Route path="*" element={<NotFoundPage />} />
            </Route>
          </Routes>
        </SettingsProvider>
      </ToastProvider>
    </BrowserRouter>
  );
}
