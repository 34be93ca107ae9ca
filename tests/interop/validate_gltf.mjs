#!/usr/bin/env node
// Runs Khronos glTF-Validator on one .gltf/.glb and prints a one-line JSON summary:
//   {"file": ..., "errors": N, "warnings": N, "infos": N, "hints": N,
//    "codes": {"CODE": count, ...}, "new_warnings": [...], "ok": true|false}
//
// usage: node validate_gltf.mjs FILE [--baseline INPUT]
//   --baseline INPUT: also validate INPUT and list, in "new_warnings", every warning code that
//   FILE has more often than INPUT (an edit must not add warnings the input did not have).
// Exit code: 0 when FILE has 0 errors (and no new warnings with --baseline), 1 otherwise,
// 2 when the validator is not installed or the arguments are wrong.
//
// The validator lives in tests/interop/node_modules (`npm install` in tests/interop; .ci/setup
// does it when node exists).
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

function usage(message) {
  console.error(`validate_gltf: ${message}\nusage: node validate_gltf.mjs FILE [--baseline INPUT]`);
  process.exit(2);
}

const args = process.argv.slice(2);
let file = null;
let baseline = null;
for (let i = 0; i < args.length; ++i) {
  if (args[i] === "--baseline") {
    if (i + 1 >= args.length) usage("--baseline needs a file");
    baseline = args[++i];
  } else if (file === null) {
    file = args[i];
  } else {
    usage(`unexpected argument '${args[i]}'`);
  }
}
if (file === null) usage("no file given");

let validator;
try {
  validator = require("gltf-validator");
} catch (e) {
  console.error("validate_gltf: gltf-validator is not installed (run `npm install` in tests/interop)");
  process.exit(2);
}

async function validate(fullpath) {
  const bytes = await readFile(fullpath);
  const report = await validator.validateBytes(new Uint8Array(bytes), {
    uri: path.basename(fullpath),
    maxIssues: 0,
    writeTimestamp: false,
    externalResourceFunction: (uri) =>
      readFile(path.resolve(path.dirname(fullpath), decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  });
  const codes = {};
  for (const m of report.issues.messages) codes[m.code] = (codes[m.code] || 0) + 1;
  const warningCodes = {};
  for (const m of report.issues.messages)
    if (m.severity === 1) warningCodes[m.code] = (warningCodes[m.code] || 0) + 1;
  const firstErrors = report.issues.messages
    .filter((m) => m.severity === 0)
    .slice(0, 5)
    .map((m) => `${m.code} ${m.pointer || ""} ${m.message}`.trim());
  return {
    errors: report.issues.numErrors,
    warnings: report.issues.numWarnings,
    infos: report.issues.numInfos,
    hints: report.issues.numHints,
    codes,
    warningCodes,
    firstErrors,
  };
}

try {
  const out = await validate(file);
  const summary = {
    file,
    validator: validator.version(),
    errors: out.errors,
    warnings: out.warnings,
    infos: out.infos,
    hints: out.hints,
    codes: out.codes,
  };
  if (out.firstErrors.length) summary.first_errors = out.firstErrors;
  let ok = out.errors === 0;
  if (baseline !== null) {
    const base = await validate(baseline);
    summary.baseline = { file: baseline, errors: base.errors, warnings: base.warnings, codes: base.codes };
    summary.new_warnings = Object.keys(out.warningCodes).filter(
      (c) => out.warningCodes[c] > (base.warningCodes[c] || 0));
    if (summary.new_warnings.length) ok = false;
  }
  summary.ok = ok;
  console.log(JSON.stringify(summary));
  process.exit(ok ? 0 : 1);
} catch (e) {
  console.log(JSON.stringify({ file, ok: false, exception: String(e) }));
  process.exit(1);
}
