// Lint: typescript-eslint's recommended rules (syntactic only: no type information, so a
// run stays fast on a small machine; `tsc --noEmit` does the type checking), the rules of
// hooks, and Next's own rules for the app's pages.
import js from "@eslint/js";
import nextPlugin from "@next/eslint-plugin-next";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  {
    ignores: [
      "node_modules/",
      ".next/",
      ".data/",
      "test-results/",
      "playwright-report/",
      "coverage/",
      "dist/",
      "tools/*/target/",
      "bench/results/",
      "workspace/",
      "next-env.d.ts",
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // A `let` read by a closure before its one assignment (a timer cleared by a callback
      // that may run first) cannot be a `const`: moving the declaration would put the
      // read in the temporal dead zone.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // `_name` marks a parameter or binding kept for its position (a callback's first
      // argument, a tuple's unused element); everything else unused is a finding.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          caughtErrorsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "e2e/**/*.ts"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The service workers: plain scripts the browser runs as they are (no build step).
    files: ["public/**/*.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.serviceworker } },
  },
  {
    files: ["e2e/**/*.ts"],
    rules: {
      // Playwright reads the fixtures a fixture or test needs from its destructured first
      // argument, so one that needs none is written `async ({}, use) => …`.
      "no-empty-pattern": "off",
    },
  },
  {
    files: ["**/*.tsx", "components/**/*.ts", "app/**/*.ts"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  {
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    plugins: { "@next/next": nextPlugin },
    rules: { ...nextPlugin.configs.recommended.rules, ...nextPlugin.configs["core-web-vitals"].rules },
  },
);
