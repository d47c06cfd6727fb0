import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { CodeBlock } from "./CodeBlock";
import { Markdown } from "./Markdown";

describe("syntax highlighting", () => {
  it("colours a CodeBlock of a known language once the highlighter has loaded", async () => {
    const { container } = render(<CodeBlock code={'def greet():\n    return "hi"'} language="python" />);
    await screen.findByText("def");
    expect(container.querySelector(".hljs-keyword")?.textContent).toBe("def");
    expect(container.querySelector(".hljs-string")?.textContent).toBe('"hi"');
    expect(container.textContent).toBe('def greet():\n    return "hi"');
  });

  it("leaves blocks without a language plain", () => {
    const { container } = render(<CodeBlock code="def x(): pass" />);
    expect(container.querySelector("code")?.innerHTML).toBe("def x(): pass");
  });

  it("colours fenced markdown blocks and escapes what they contain", async () => {
    const { container } = render(<Markdown text={'```js\nconst tag = "<img src=x onerror=alert(1)>";\n```'} />);
    await screen.findByText("const");
    expect(container.querySelector("code.hljs .hljs-keyword")?.textContent).toBe("const");
    expect(container.querySelector("img")).toBeNull();
  });
});
