import { describe, expect, it } from "vitest";
import { vscodeLogin } from "./vscodeLogin";

describe("vscodeLogin", () => {
  it("posts the token to /login and lands on the folder", () => {
    const login = vscodeLogin("http://localhost:41234/?tkn=abc123&folder=/workspace", "localhost");
    expect(login).toEqual({
      action: "http://localhost:41234/login?to=%2F%3Ffolder%3D%252Fworkspace",
      token: "abc123",
      openUrl: "http://localhost:41234/?folder=%2Fworkspace",
    });
  });

  it("uses the page's host for a localhost URL, so the frame is same-site", () => {
    const login = vscodeLogin("http://localhost:41234/?tkn=t&folder=/w", "127.0.0.1");
    expect(login?.action.startsWith("http://127.0.0.1:41234/login?")).toBe(true);
    expect(login?.openUrl).toBe("http://127.0.0.1:41234/?folder=%2Fw");
  });

  it("keeps any other host", () => {
    const login = vscodeLogin("http://sandbox.example:41234/?tkn=t", "127.0.0.1");
    expect(login?.openUrl).toBe("http://sandbox.example:41234/");
  });

  it("gives null without a token or for a broken URL", () => {
    expect(vscodeLogin("http://localhost:1/?folder=/w", "localhost")).toBeNull();
    expect(vscodeLogin("not a url", "localhost")).toBeNull();
  });
});
