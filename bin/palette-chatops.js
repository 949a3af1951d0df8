#!/usr/bin/env node
// Runs the compiled bot (dist/, as in the Docker image) or, in a source checkout, the
// TypeScript sources through tsx, so `palette-chatops start|console|demo|simulator|doctor` works in both.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const compiled = join(root, "dist", "main.js");

if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(join(root, "src", "main.ts")).href);
}
