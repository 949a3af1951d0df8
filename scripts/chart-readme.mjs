#!/usr/bin/env node
// The chart's README (deploy/helm/palette-chatops/README.md), generated from values.yaml's
// comments (the `# --` one above each value, which test/unit/repo/helm-chart.test.ts requires),
// the types in values.schema.json and Chart.yaml. Written here rather than taken from a
// generator package: @bitnami/readme-generator-for-helm wants a second `## @param` line per
// value, and helm-docs is a Go binary, neither of which this project installs.
//   node scripts/chart-readme.mjs            # writes the README
//   node scripts/chart-readme.mjs --check    # exits 1, naming the fix, when the README is stale
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isMap, isScalar, parse, parseDocument } from "yaml";

const CHART = join(import.meta.dirname, "..", "deploy", "helm", "palette-chatops");

/**
 * a comment as one line of prose, from its last `-- ` line on (what stands above is the file's
 * or a section's header), the marker and the line breaks gone
 */
function prose(comment) {
  const lines = (comment ?? "").split("\n").map((line) => line.trim());
  const start = lines.findLastIndex((line) => line.startsWith("--"));
  return lines.slice(Math.max(start, 0)).join(" ").replace(/^-- ?/, "").replace(/\s+/g, " ").trim();
}

function cell(text) {
  return text.replaceAll("|", "\\|").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

export function renderReadme(valuesText, schema, chart) {
  const resolve = (node) =>
    node && typeof node.$ref === "string"
      ? resolve(
          node.$ref
            .replace(/^#\//, "")
            .split("/")
            .reduce((at, key) => at[key], schema),
        )
      : (node ?? {});
  const rows = [];
  const walk = (map, path, schemaNode, inherited) => {
    map.items.forEach((pair, index) => {
      const key = String(isScalar(pair.key) ? pair.key.value : pair.key);
      const name = [...path, key].join(".");
      // the comment above a map's first key is kept on the map itself (as the test reads it)
      const own = prose(
        (isScalar(pair.key) && pair.key.commentBefore) ||
          pair.value?.comment ||
          (index === 0 ? map.commentBefore : ""),
      );
      const child = resolve(resolve(schemaNode).properties?.[key]);
      if (isMap(pair.value) && pair.value.items.length > 0 && child.properties) {
        walk(pair.value, [...path, key], child, own || inherited);
        return;
      }
      const type = Array.isArray(child.type) ? child.type.join(" or ") : (child.type ?? "object");
      const value = JSON.stringify(pair.value?.toJSON ? pair.value.toJSON() : pair.value);
      rows.push(`| \`${name}\` | ${type} | \`${cell(value)}\` | ${cell(own || inherited)} |`);
    });
  };
  const document = parseDocument(valuesText);
  walk(document.contents, [], schema, "");
  return `# ${chart.name}

${chart.description}

- Chart ${chart.version}, app ${chart.appVersion}, Kubernetes ${chart.kubeVersion}
- Source: ${chart.home}
- Install, upgrade, the NetworkPolicy and the extension points: [docs/install.md](../../../docs/install.md)
- One values file per real install (OpenShift, a proxy with a private CA, HA on PostgreSQL, HTTP
  with Ingress, the assistant): [ci/](ci/)

\`\`\`sh
helm install palette-chatops oci://ghcr.io/palette-chatops/charts/palette-chatops \\
  --version ${chart.version} -f values.yaml
\`\`\`

## Values

Generated from the comments of [values.yaml](values.yaml) and the types of
[values.schema.json](values.schema.json) by \`node scripts/chart-readme.mjs\`; \`npm test\` fails
when this table is stale. Helm refuses a key that is not here or a value of another type.

| Key | Type | Default | Description |
|---|---|---|---|
${rows.join("\n")}
`;
}

export function currentReadme() {
  return renderReadme(
    readFileSync(join(CHART, "values.yaml"), "utf8"),
    JSON.parse(readFileSync(join(CHART, "values.schema.json"), "utf8")),
    parse(readFileSync(join(CHART, "Chart.yaml"), "utf8")),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = process.argv.includes("--check")
    ? (process.argv[process.argv.indexOf("--check") + 1] ?? join(CHART, "README.md"))
    : join(CHART, "README.md");
  const wanted = currentReadme();
  if (process.argv.includes("--check")) {
    let actual = "";
    try {
      actual = readFileSync(target, "utf8");
    } catch {}
    if (actual !== wanted) {
      console.error(
        `${target} is stale: values.yaml, values.schema.json or Chart.yaml changed. Run: node scripts/chart-readme.mjs`,
      );
      process.exit(1);
    }
    console.log(`${target} is up to date`);
  } else {
    writeFileSync(target, wanted);
    console.log(`wrote ${target}`);
  }
}
