import { describe, expect, it } from "vitest";
import { appUrl, hostOf, pathOf } from "./appPath";

describe("app path bar", () => {
  const base = "http://localhost:50123";

  it("resolves a path on the app", () => {
    expect(appUrl(base, "/docs?page=2")).toBe("http://localhost:50123/docs?page=2");
    expect(appUrl(base, "api/items")).toBe("http://localhost:50123/api/items");
    expect(appUrl(`${base}/sub/`, "")).toBe("http://localhost:50123/");
  });

  it("refuses anything that would leave the app", () => {
    expect(appUrl(base, "https://example.com/")).toBeNull();
    expect(appUrl(base, "//example.com/x")).toBeNull();
    expect(appUrl(base, "javascript:alert(1)")).toBeNull();
    expect(appUrl("not a url", "/x")).toBeNull();
  });

  it("shows the path part and the host", () => {
    expect(pathOf("http://localhost:50123/a/b?c=1#d")).toBe("/a/b?c=1#d");
    expect(hostOf("http://localhost:50123/a")).toBe("localhost:50123");
  });
});
