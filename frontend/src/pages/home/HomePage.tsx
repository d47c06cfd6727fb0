import { lazy, Suspense } from "react";
import { providersOf, useSettings } from "../../hooks/SettingsContext";
import { withNamespace } from "../../i18n";
import { ConversationList } from "./ConversationList";
import { NewConversationForm } from "./NewConversationForm";
import { SetupBanner } from "./SetupBanner";

// Suggested tasks need a git token; users without one never download them.
const SuggestedTasks = lazy(() =>
  withNamespace(import("./SuggestedTasks"), "repos").then((m) => ({ default: m.SuggestedTasks })),
);

export function HomePage() {
  const { settings, loaded, error } = useSettings();
  const needsSetup = loaded && !error && settings === null;
  return (
    <div className="page home">
      {needsSetup && <SetupBanner />}
      <NewConversationForm disabled={needsSetup} />
      {providersOf(settings).length > 0 && (
        <Suspense fallback={null}>
          <SuggestedTasks />
        </Suspense>
      )}
      <ConversationList />
    </div>
  );
}
