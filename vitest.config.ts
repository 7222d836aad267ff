import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["{lib,server,models,components,bench,scripts,load,test}/**/*.test.{ts,tsx}"],
    globalSetup: ["./test/support/server/global-setup.ts"],
    setupFiles: ["./test/support/server/fast-check-setup.ts"],
    // Bounds for a hung test, not for speed: beside other work on two cores a test that takes
    // 3 s alone can take ten times that, and the suite must still pass there.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: integration suites each start a server; run files two at a time.
    maxWorkers: 2,
  },
});
