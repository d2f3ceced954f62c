// The front end's linter (ESLint; .ci/run installs it with npm ci, package-lock.json pins it):
// the browser pages' ES modules under src/hexstones/web/static, and this file.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: [".venv/**", "venv/**", "build/**", "dist/**", "out/**"] },
  js.configs.recommended,
  {
    files: ["src/hexstones/web/static/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
    rules: {
      // An unused ``catch (_)`` or argument says it is left out on purpose.
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
      "eqeqeq": "error",
      "no-var": "error",
      "prefer-const": "error",
      "no-shadow": "error",
      // What the pages share goes through imports, never through window's properties.
      "no-restricted-syntax": ["error", {
        selector: "AssignmentExpression > MemberExpression.left[object.name='window']",
        message: "share through an export, not a property of window",
      }],
    },
  },
  {
    files: ["eslint.config.js"],
    languageOptions: { sourceType: "module", globals: globals.node },
  },
];
