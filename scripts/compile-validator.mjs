// Compile the route-memory JSON Schema into the browser's validator: Ajv's standalone code
// (no eval or new Function at run time, so the page's CSP needs no 'unsafe-eval'), bundled
// by esbuild with Ajv's few run-time helpers and the RFC 3339 check into one ES module the
// page imports as is.
//
// Usage: node scripts/compile-validator.mjs < schema.json > static/vendor/route-memory-validator.js
// `python -m app.contract.generate` runs it; the output is deterministic for a given schema
// and the versions package-lock.json pins.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

import Ajv2020 from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import { _ } from "ajv";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const formats = createRequire(import.meta.url)("./rfc3339.cjs");

const schema = JSON.parse(readFileSync(0, "utf8"));
const ajv = new Ajv2020.default({
  allErrors: true, // every problem, so the learner hears them all (memory.js picks the first few)
  verbose: true, // errors carry their schema node: the sentences state the whole range
  allowUnionTypes: true, // "type": ["number", "null"]
  strict: true,
  inlineRefs: false, // each $defs entry compiled once, called where it is referenced
  formats,
  code: { source: true, esm: true, formats: _`require("./rfc3339.cjs")` },
});
ajv.addSchema(schema);
const id = schema.$id;
// The RFC 3339 check is exported too, so study.js's dates are held to the same test.
const source =
  standaloneCode(ajv, {
    validateEntry: `${id}#/$defs/entry`,
    validateExport: `${id}#/$defs/export`,
  }) + '\nexport const isDateTime = require("./rfc3339.cjs")["date-time"];\n';

const bundled = await build({
  stdin: { contents: source, resolveDir: here, sourcefile: "route-memory-validator.js", loader: "js" },
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2020",
  write: false,
  legalComments: "none",
  logLevel: "error",
});

const header = [
  "// GENERATED: do not edit. The browser's route-memory validator, compiled from",
  "// docs/route-memory.schema.json (itself generated from app/contract/route.py and",
  "// witness/core/settings.py) by `python -m app.contract.generate`, which runs",
  "// scripts/compile-validator.mjs (Ajv standalone code + esbuild; no eval at run time).",
  "",
].join("\n");
process.stdout.write(header + bundled.outputFiles[0].text);
