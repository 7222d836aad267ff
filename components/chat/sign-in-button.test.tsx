import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { McpServerInfo } from "@/lib/contracts";
import { SignInButton } from "./sign-in-button";
import { mcpSignedIn } from "./tool-servers";

/** What a server or remote agent each person signs in to offers in the tool servers menu, as rendered. */

const server = (status: McpServerInfo["status"], signIn = true): McpServerInfo => ({ name: "vault", status, signIn, tools: [] });
const render = (signedIn: boolean) =>
  renderToString(<SignInButton route={(action) => `/api/mcp/vault/${action}`} signedIn={signedIn} onChanged={() => undefined} />);

describe("the sign-in button of a tool server or remote agent", () => {
  it.each([
    ["needs_sign_in", "Sign in"],
    ["connected", "Sign out"],
    ["connecting", "Sign out"],
    ["failed", "Sign out"],
  ] as const)("a server that is %s offers %s", (status, label) => {
    const html = render(mcpSignedIn(server(status))!);
    expect(html).toContain(`>${label}</button>`);
    expect(html).toContain("dark:");
  });

  it("offers nothing for a server that is turned off, or that nobody signs in to", () => {
    expect(mcpSignedIn(server("disabled"))).toBeNull();
    expect(mcpSignedIn(server("connected", false))).toBeNull();
  });
});
