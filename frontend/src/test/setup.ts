import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";
// Components translate through the shared instance; English is loaded synchronously.
import "../i18n";

afterEach(() => {
  cleanup();
});
