import { useEffect, useState } from "react";
import { useTranslation } from "../i18n/useTranslation";
import { NavLink, Outlet, useLocation } from "react-router-dom";
import { useMediaQuery } from "../hooks/useMediaQuery";
import { ConversationSidebar } from "./sidebar/ConversationSidebar";

/** At this width and below the layout is the mobile one (chat first, panels over it). */
export const NARROW_QUERY = "(max-width: 1024px)";
const SIDEBAR_KEY = "openhands:sidebar-open";

function storedSidebarOpen(): boolean {
  try {
    return localStorage.getItem(SIDEBAR_KEY) !== "false";
  } catch {
    return true;
  }
}

export function Layout() {
  const narrow = useMediaQuery(NARROW_QUERY);
  // Wide screens remember the user's choice; narrow ones open the sidebar over the page on demand.
  const [wideOpen, setWideOpen] = useState(storedSidebarOpen);
  const [narrowOpen, setNarrowOpen] = useState(false);
  const open = narrow ? narrowOpen : wideOpen;
  const location = useLocation();
  const { t } = useTranslation("navigation");

  useEffect(() => setNarrowOpen(false), [location.pathname]);

  function toggle() {
    if (narrow) {
      setNarrowOpen((v) => !v);
      return;
    }
    setWideOpen((v) => {
      try {
        localStorage.setItem(SIDEBAR_KEY, String(!v));
      } catch {
        // Not remembered across reloads; the toggle still works.
      }
      return !v;
    });
  }

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {t("skipToContent")}
      </a>
      <header className="app-header">
        <button
          type="button"
          className="icon-button sidebar-toggle"
          data-testid="sidebar-toggle"
          aria-expanded={open}
          aria-controls="conversation-sidebar"
          aria-label={open ? t("hideSidebar") : t("showSidebar")}
          onClick={toggle}
        >
          ☰
        </button>
        <NavLink to="/" className="brand" aria-label={t("brandHome")}>
          <span className="brand__mark" aria-hidden="true" />
          OpenHands
        </NavLink>
        <nav aria-label={t("mainNav")}>
          <NavLink to="/" end className="nav-link" data-testid="nav-home">
            {t("conversations")}
          </NavLink>
          <NavLink to="/agents" className="nav-link" data-testid="nav-overview">
            {t("agents")}
          </NavLink>
          <NavLink to="/settings" className="nav-link" data-testid="nav-settings">
            {t("settings")}
          </NavLink>
        </nav>
      </header>
      <div className="app-body">
        {open && <ConversationSidebar id="conversation-sidebar" open={open} />}
        {open && narrow && <div className="sidebar-backdrop" aria-hidden="true" onClick={() => setNarrowOpen(false)} />}
        <main id="main" className="app-main">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
