import { describe, expect, it } from "vitest";
import {
  admitFiles,
  dataUrlBytes,
  MESSAGE_LIMIT_BYTES,
  UPLOAD_LIMIT_BYTES,
  withFilePaths,
  withoutFilePaths,
} from "./attachments";

/** A File-shaped stand-in of a given size (no real bytes needed for the checks). */
function fake(name: string, type: string, size: number): File {
  return { name, type, size } as File;
}

describe("attachment limits", () => {
  it("counts images as the data URLs they become", () => {
    expect(dataUrlBytes(fake("a.png", "image/png", 3))).toBe("data:image/png;base64,".length + 4);
  });

  it("admits images that fit in one message and refuses the one that would not", () => {
    const small = fake("small.png", "image/png", 1024 * 1024);
    const big = fake("big.png", "image/png", MESSAGE_LIMIT_BYTES);
    const { accepted, refusal } = admitFiles([], [small, big]);
    expect(accepted).toEqual([small]);
    expect(refusal).toContain("big.png");
    expect(refusal).toContain("4.0 MB");
  });

  it("counts images already attached and the text against the same message", () => {
    const first = fake("one.png", "image/png", 1.5 * 1024 * 1024);
    const second = fake("two.png", "image/png", 1.5 * 1024 * 1024);
    expect(admitFiles([first], [second]).refusal).toContain("two.png");
    expect(admitFiles([], [first], 0).refusal).toBeNull();
    expect(admitFiles([], [first], 3 * 1024 * 1024).refusal).toContain("one.png");
  });

  it("limits other files by the upload route's body limit", () => {
    const doc = fake("data.csv", "text/csv", UPLOAD_LIMIT_BYTES - 10);
    const more = fake("more.csv", "text/csv", 100);
    const { accepted, refusal } = admitFiles([], [doc, more]);
    expect(accepted).toEqual([doc]);
    expect(refusal).toMatch(/^Too large to send: more\.csv \(100 B\): the server accepts at most 64\.0 MB/);
  });

  it("names uploaded files in the text for the agent and hides them again for display", () => {
    const paths = ["/workspace/a.txt", "/workspace/b.csv"];
    const content = withFilePaths("read these", paths);
    expect(content).toBe("read these\n\nNEW FILES ADDED: /workspace/a.txt\n\n/workspace/b.csv");
    expect(withoutFilePaths(content, paths)).toBe("read these");
    expect(withFilePaths("plain", [])).toBe("plain");
    // Without file_urls the text is the user's own, marker or not.
    expect(withoutFilePaths("NEW FILES ADDED: none", [])).toBe("NEW FILES ADDED: none");
  });
});
