import { describe, expect, it } from "vitest";
import { branchUrl, gitRequestMessage, repositoryUrl } from "./gitRepository";

describe("provider links", () => {
  it("point at each provider's repository and branch pages", () => {
    expect(repositoryUrl("github", "o/r")).toBe("https://github.com/o/r");
    expect(branchUrl("github", "o/r", "feat/x")).toBe("https://github.com/o/r/tree/feat/x");
    expect(branchUrl("gitlab", "g/sub/r", "dev")).toBe("https://gitlab.com/g/sub/r/-/tree/dev");
    expect(branchUrl("bitbucket", "o/r", "dev")).toBe("https://bitbucket.org/o/r/src/dev");
  });

  it("use the custom host stored with the token", () => {
    expect(repositoryUrl("github", "o/r", "ghe.example.com")).toBe("https://ghe.example.com/o/r");
    expect(repositoryUrl("gitlab", "o/r", "http://git.local:8080/")).toBe("http://git.local:8080/o/r");
  });

  it("escape what is not a path separator", () => {
    expect(branchUrl("github", "o/r", "a#b")).toBe("https://github.com/o/r/tree/a%23b");
  });
});

describe("gitRequestMessage", () => {
  it("names the provider and its kind of change request", () => {
    expect(gitRequestMessage("pr", "gitlab")).toContain("merge request");
    expect(gitRequestMessage("pr", "github")).toContain("pull request");
    expect(gitRequestMessage("push", "bitbucket")).toContain("Bitbucket");
    expect(gitRequestMessage("pull", "github")).toMatch(/^Pull /);
  });
});
