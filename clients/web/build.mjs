// Builds the planner into a static bundle: index.html plus content-hashed
// JS and CSS under assets/ (esbuild, minified, no source maps, so the same
// sources and lock file always give the same bytes), and the minimal
// Connect-Web example (dist/app.js) that services/api/apiserver's CORS
// browser test serves. Usage: node build.mjs [planner-out-dir]
// (default dist/planner; scripts/build-web-client.sh compares it with the
// committed services/api/planner/dist).
import * as esbuild from "esbuild";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

const out = process.argv[2] ?? "dist/planner";
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });

const result = await esbuild.build({
  entryPoints: { app: "src/main.tsx" },
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2020",
  outdir: join(out, "assets"),
  entryNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  loader: { ".png": "file", ".svg": "file" },
  jsx: "automatic",
  jsxImportSource: "preact",
  define: { "process.env.NODE_ENV": '"production"' },
  legalComments: "eof",
  metafile: true,
  logLevel: "warning",
});

let js = "";
let css = "";
for (const [file, meta] of Object.entries(result.metafile.outputs)) {
  if (meta.entryPoint && file.endsWith(".js")) js = basename(file);
  if (file.endsWith(".css")) css = basename(file);
}
if (!js || !css) throw new Error("build: no JS or CSS output");

writeFileSync(
  join(out, "index.html"),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>Roadbook planner</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/app/assets/${css}">
<script type="module" src="/app/assets/${js}"></script>
</head>
<body>
<div id="app"><p class="boot">Loading Roadbook…</p></div>
<noscript>Roadbook's planner needs JavaScript.</noscript>
</body>
</html>
`,
);

await esbuild.build({
  entryPoints: ["src/examples/list-trips.ts"],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  outfile: "dist/app.js",
  logLevel: "warning",
});
console.error(`build: ${out}/assets/${js}, ${out}/assets/${css}; dist/app.js`);
