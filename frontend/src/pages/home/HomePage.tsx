import { useSettings } from "../../hooks/SettingsContext";
import { ConversationList } from "./ConversationList";
import { NewConversationForm } from "./NewConversationForm";
import { SetupBanner } from "./SetupBanner";

export function HomePage() {
  const { settings, loaded, error } = useSettings();
  const needsSetup = loaded && !error && settings === null;
  return (
    <div className="page home">
      {needsSetup && <SetupBanner />}
      <NewConversationForm disabled={needsSetup} />
      <ConversationList />
    </div>
  );
}
