#!/usr/bin/env node
// Typesets every formula of one report build in a single process, so the page needs no
// JavaScript at view time. stdin: JSON [{tex, display, label?}]; stdout: JSON [html].
// Any formula KaTeX rejects stops the build: exit 2 with the formula's label and TeX on stderr —
// except one marked "source": a formula as a user's note writes it, shown as the note has it
// (no macros, Chinese in math allowed); one KaTeX rejects comes back as null, to be shown as TeX.
// With --check, nothing stops: stdout is JSON [null | KaTeX's message], one per formula.
"use strict";

const katex = require("katex");

function readStdin() {
  return require("fs").readFileSync(0, "utf8");
}

function fail(message) {
  process.stderr.write(message + "\n");
  process.exit(2);
}

let items;
try {
  items = JSON.parse(readStdin());
} catch (err) {
  fail("render.js: stdin is not JSON: " + err.message);
}
if (!Array.isArray(items)) fail("render.js: expected a JSON list of {tex, display}, got " + typeof items);

const checking = process.argv.includes("--check");
const out = [];
items.forEach((item, i) => {
  const label = item.label || "formula #" + i;
  if (typeof item.tex !== "string") fail(`render.js: ${label}: expected "tex" string, got ${typeof item.tex}`);
  if (item.source) {
    try {
      out.push(katex.renderToString(item.tex, {
        displayMode: Boolean(item.display), throwOnError: true, strict: "ignore", trust: false,
        output: "htmlAndMathml",
      }));
    } catch (err) {
      out.push(null);
    }
    return;
  }
  try {
    out.push(
      katex.renderToString(item.tex, {
        displayMode: Boolean(item.display),
        throwOnError: true,
        // Unknown or unicode-in-math input is an error, not a silent fallback.
        strict: (code) => (code === "unicodeTextInMathMode" ? "error" : "warn"),
        trust: false,
        output: "htmlAndMathml",
        // one epsilon: SymPy prints its symbol epsilon as \epsilon, the notes write \varepsilon
        macros: { "\\epsilon": "\\varepsilon" },
      }),
    );
    if (checking) out[out.length - 1] = null;
  } catch (err) {
    if (checking) out.push(err.message);
    else fail(`KaTeX cannot typeset ${label}: ${err.message}\n  TeX: ${item.tex}`);
  }
});
process.stdout.write(JSON.stringify(out));
