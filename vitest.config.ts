import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["{lib,server,models,components,bench,scripts,load,test}/**/*.test.{ts,tsx}"],
    globalSetup: ["./test/support/server/global-setup.ts"],
    setupFiles: ["./test/support/server/fast-check-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: integration suites each start a server; run files two at a time.
    maxWorkers: 2,
  },
});
