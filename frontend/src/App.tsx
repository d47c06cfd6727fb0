import { lazy, Suspense } from "react";
import { BrowserRouter, Route, Routes } from "react-router-dom";
import { Layout } from "./components/Layout";
import { SettingsProvider } from "./hooks/SettingsContext";
import { ToastProvider } from "./hooks/ToastContext";
import { HomePage } from "./pages/home/HomePage";
import { NotFoundPage } from "./pages/NotFoundPage";

// The conversation route pulls in socket.io, xterm, markdown and diff code;
// settings is rarely visited. Both load on demand.
const ConversationPage = lazy(() => import("./pages/conversation/ConversationPage"));
const SettingsPage = lazy(() => import("./pages/settings/SettingsPage"));
const OverviewPage = lazy(() => import("./pages/overview/OverviewPage"));

function PageLoading() {
  return (
    <div className="page-loading" role="status">
      Loading…
    </div>
  );
}

export function App() {
  return (
    <BrowserRouter>
      <ToastProvider>
        <SettingsProvider>
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
