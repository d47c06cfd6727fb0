import { Link } from "react-router-dom";

export function NotFoundPage() {
  return (
    <section className="page page--narrow">
      <h1>Page not found</h1>
      <p>
        <Link to="/">Back to your conversations</Link>
      </p>
    </section>
  );
}
