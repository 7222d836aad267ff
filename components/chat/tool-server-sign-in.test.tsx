import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { McpServerInfo } from "@/lib/contracts";
import { ToolServerSignIn } from "./tool-server-sign-in";

/** What a server each person signs in to offers in the tool servers menu, as rendered. */

const server = (status: McpServerInfo["status"]): McpServerInfo => ({ name: "vault", status, signIn: true, tools: [] });
const render = (status: McpServerInfo["status"]) =>
  renderToString(<ToolServerSignIn server={server(status)} onChanged={() => undefined} />);

describe("the sign-in button of a tool server", () => {
  it.each([
    ["needs_sign_in", "Sign in"],
    ["connected", "Sign out"],
    ["connecting", "Sign out"],
    ["failed", "Sign out"],
  ] as const)("%s → %s", (status, label) => {
    const html = render(status);
    expect(html).toContain(`>${label}</button>`);
    expect(html).toContain("dark:");
  });

  it("offers nothing for a server that is turned off", () => {
    expect(render("disabled")).toBe("");
  });
});
