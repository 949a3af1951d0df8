#!/usr/bin/env node
// Part of `npm run lint`: every workflow under .github/workflows/ and .github/dependabot.yml are
// checked against SchemaStore's github-workflow and dependabot-2.0 schemas, vendored in
// test/fixtures/github/ (see its SOURCE.md), with ajv. A file that is not YAML, or that the schema
// refuses, fails the run with one line per problem.
// Usage: node .ci/validate-github.mjs [repository root]
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import Ajv from "ajv";
import { parse } from "yaml";

const root = process.argv[2] ?? process.cwd();
const schemas = join(import.meta.dirname, "..", "test", "fixtures", "github");
// SchemaStore's schemas carry editor hints (x-intellij-*, markdownDescription) that strict mode
// would refuse as unknown keywords
const ajv = new Ajv({ allErrors: true, strict: false });
const validator = (name) =>
  ajv.compile(JSON.parse(readFileSync(join(schemas, `${name}.json`), "utf8")));

/** problems with one file, empty when the schema accepts it */
function check(file, validate) {
  const shown = relative(process.cwd(), file) || file;
  let document;
  try {
    document = parse(readFileSync(file, "utf8"));
  } catch (error) {
    return [`${shown}: not YAML: ${error.message.split("\n")[0]}`];
  }
  if (validate(document)) return [];
  return (validate.errors ?? []).map(
    (error) =>
      `${shown}: ${error.instancePath || "/"} ${error.message}${
        error.params?.additionalProperty ? ` (${error.params.additionalProperty})` : ""
      }`,
  );
}

const problems = [];
const workflowsDir = join(root, ".github", "workflows");
const workflows = existsSync(workflowsDir)
  ? readdirSync(workflowsDir)
      .filter((name) => /\.ya?ml$/.test(name))
      .map((name) => join(workflowsDir, name))
  : [];
if (workflows.length === 0) problems.push(`${workflowsDir}: no workflow files`);
const workflow = validator("github-workflow");
for (const file of workflows) problems.push(...check(file, workflow));

const dependabot = join(root, ".github", "dependabot.yml");
if (!existsSync(dependabot)) problems.push(`${dependabot}: missing`);
else problems.push(...check(dependabot, validator("dependabot-2.0")));

if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  process.exit(1);
}
process.stdout.write(`.github: ${workflows.length} workflows and dependabot.yml valid\n`);
