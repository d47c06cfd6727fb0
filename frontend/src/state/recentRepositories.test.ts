import { afterEach, describe, expect, it } from "vitest";
import { hasNextPage, MAX_RECENT, recentFirst, recentRepositories, rememberRepository } from "./recentRepositories";

afterEach(() => localStorage.clear());

describe("recent repositories", () => {
  it("keeps the newest first, without duplicates, up to the limit", () => {
    for (let i = 0; i < MAX_RECENT + 2; i++) rememberRepository({ provider: "github", repository: `o/r${i}` });
    rememberRepository({ provider: "github", repository: "o/r5" });
    const names = recentRepositories().map((r) => r.repository);
    expect(names[0]).toBe("o/r5");
    expect(names).toHaveLength(MAX_RECENT);
    expect(new Set(names).size).toBe(names.length);
  });

  it("ignores a damaged store", () => {
    localStorage.setItem("openhands:recent-repositories", "{not json");
    expect(recentRepositories()).toEqual([]);
  });

  it("moves recent items to the front in recency order", () => {
    expect(recentFirst(["a", "b", "c", "d"], (x) => x, ["c", "a"])).toEqual(["c", "a", "b", "d"]);
  });
});

describe("hasNextPage", () => {
  it("reads rel=next from a Link header", () => {
    expect(hasNextPage('<https://api.github.com/user/repos?page=2>; rel="next", <…>; rel="last"')).toBe(true);
    expect(hasNextPage('<https://api.github.com/user/repos?page=1>; rel="prev"')).toBe(false);
    expect(hasNextPage(null)).toBe(false);
  });
});
