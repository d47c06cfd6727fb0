import { describe, expect, it } from "vitest";
import { groupModels, joinModelId, NO_PROVIDER, splitModelId } from "./modelCatalog";

describe("groupModels", () => {
  const groups = groupModels(["zeta/z-1", "openai/gpt-3.5-turbo", "openai/gpt-4o", "anthropic/claude-2", "bare-model"]);

  it("puts the verified providers first, in their fixed order, then the rest by name", () => {
    expect(groups.map((g) => g.provider)).toEqual(["openhands", "anthropic", "openai", "mistral", NO_PROVIDER, "zeta"]);
  });

  it("lists a provider's verified models before its other models", () => {
    const openai = groups.find((g) => g.provider === "openai");
    const names = openai?.models.map((m) => m.name) ?? [];
    expect(names.indexOf("gpt-4o")).toBeLessThan(names.indexOf("gpt-3.5-turbo"));
    expect(openai?.models.find((m) => m.name === "gpt-3.5-turbo")?.verified).toBe(false);
    expect(openai?.models[0]?.verified).toBe(true);
  });

  it("keeps unverified providers with what the server listed", () => {
    expect(groups.find((g) => g.provider === "zeta")).toEqual({
      provider: "zeta",
      verified: false,
      models: [{ name: "z-1", verified: false }],
    });
  });
});

describe("model ids", () => {
  it("split at the first slash and join back", () => {
    expect(splitModelId("openrouter/meta/llama")).toEqual({ provider: "openrouter", name: "meta/llama" });
    expect(joinModelId("openrouter", "meta/llama")).toBe("openrouter/meta/llama");
    expect(splitModelId("gpt-4o")).toEqual({ provider: NO_PROVIDER, name: "gpt-4o" });
    expect(joinModelId(NO_PROVIDER, "gpt-4o")).toBe("gpt-4o");
  });
});
