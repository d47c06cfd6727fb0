import { NavLink, Outlet } from "react-router-dom";

export function Layout() {
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <NavLink to="/" className="brand" aria-label="OpenHands home">
          <span className="brand__mark" aria-hidden="true" />
          OpenHands
        </NavLink>
        <nav aria-label="Main">
          <NavLink to="/" end className="nav-link" data-testid="nav-home">
            Conversations
          </NavLink>
          <NavLink to="/settings" className="nav-link" data-testid="nav-settings">
            Settings
          </NavLink>
        </nav>
      </header>
      <main id="main" className="app-main">
        <Outlet />
      </main>
    </div>
  );
}
