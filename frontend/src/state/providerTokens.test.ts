import { describe, expect, it } from "vitest";
import { buildProviderTokens } from "./providerTokens";

describe("buildProviderTokens", () => {
  it("sends a new token with its host", () => {
    expect(buildProviderTokens({}, { github: { token: " ghp_1 ", host: "" } })).toEqual({
      github: { token: "ghp_1", host: null },
    });
  });

  it("keeps connected providers with an empty token so their stored token survives", () => {
    expect(buildProviderTokens({ github: "github.com" }, { gitlab: { token: "glpat", host: "gitlab.example.com" } })).toEqual({
      github: { token: "", host: "github.com" },
      gitlab: { token: "glpat", host: "gitlab.example.com" },
    });
  });

  it("changes only the host of a connected provider", () => {
    expect(buildProviderTokens({ github: "github.com" }, { github: { token: "", host: "ghe.example.com" } })).toEqual({
      github: { token: "", host: "ghe.example.com" },
    });
  });

  it("ignores an empty draft for a provider that is not connected", () => {
    expect(buildProviderTokens({}, { bitbucket: { token: " ", host: "" } })).toEqual({});
  });
});
