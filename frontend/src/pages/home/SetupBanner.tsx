import { Link } from "react-router-dom";

/** First run: GET /api/settings answered 404, so no model is configured. */
export function SetupBanner() {
  return (
    <section className="setup-banner" aria-labelledby="setup-title" data-testid="setup-banner">
      <h2 id="setup-title">Connect a language model to get started</h2>
      <p>The agent needs an LLM. Choose a model and enter its API key, then come back to give it a task.</p>
      <Link to="/settings" className="button button--primary" data-testid="setup-open-settings">
        Open settings
      </Link>
    </section>
  );
}
