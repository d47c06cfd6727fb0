import { describe, expect, it } from "vitest";
import { vscodeNotice } from "./vscodeStatus";

describe("vscodeNotice", () => {
  it("shows the build's progress and keeps asking while it builds", () => {
    const notice = vscodeNotice({ enabled: true, state: "building", message: "Step 3/9 : RUN npm install" });
    expect(notice.text).toMatch(/being prepared in the background/);
    expect(notice.detail).toBe("Step 3/9 : RUN npm install");
    expect(notice.poll).toBe(true);
  });

  it("tells a user of an older sandbox to start a new conversation once it is ready", () => {
    const notice = vscodeNotice({ enabled: true, state: "ready", message: null });
    expect(notice.text).toMatch(/new conversation/);
    expect(notice.poll).toBe(false);
  });

  it("names the setting when VS Code is off and the reason when the build failed", () => {
    expect(vscodeNotice({ enabled: false, state: "off", message: null }).text).toMatch(/enable_vscode = false/);
    const failed = vscodeNotice({ enabled: true, state: "failed", message: "npm: not found" });
    expect(failed.detail).toBe("npm: not found");
    expect(failed.poll).toBe(false);
  });

  it("says VS Code is not available for a runtime that builds no image", () => {
    expect(vscodeNotice({ enabled: true, state: "not_docker", message: null }).text).toMatch(/not available/);
    expect(vscodeNotice(undefined).poll).toBe(false);
  });
});
