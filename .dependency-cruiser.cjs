/**
 * The layering of src/, checked by `npm run lint`. Imports only go down:
 *   edge      slack/ console/ http/ app/ main.ts
 *   use cases commands/ launch/ notify/ conversation/ identity/ changes/ why/ radar/
 *   services  palette/ store/ views/ access/
 *   ground    model/ config.ts log.ts clock.ts secret.ts
 * simulator/ stands beside the bot: it may use the ground and palette's shared constants only.
 */
const EDGE = "^src/(slack|console|http|app)/|^src/main\\.ts$";
const USE_CASES = "^src/(commands|launch|notify|conversation|identity|changes|why|radar)/";
const SERVICES = "^src/(palette|store|views|access)/";
const GROUND = "^src/(model/|config\\.ts$|log\\.ts$|clock\\.ts$|secret\\.ts$)";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A cycle ties modules so that neither can change or be tested alone.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "use-cases-not-up",
      severity: "error",
      comment: "commands/, launch/ and notify/ serve every edge; they never import one.",
      from: { path: USE_CASES },
      to: { path: EDGE },
    },
    {
      name: "services-not-up",
      severity: "error",
      comment: "palette/, store/, views/ and access/ know nothing of use cases or edges.",
      from: { path: SERVICES },
      to: { path: `${EDGE}|${USE_CASES}` },
    },
    {
      name: "ground-not-up",
      severity: "error",
      comment: "model/, config, log, clock and secret are what every layer stands on.",
      from: { path: GROUND },
      to: { path: `${EDGE}|${USE_CASES}|${SERVICES}|^src/simulator/` },
    },
    {
      name: "bot-not-simulator",
      severity: "error",
      comment: "The simulator is a stand-in for Palette: only wiring (app/, main.ts) may start it.",
      from: { path: "^src/", pathNot: "^src/(simulator|app)/|^src/main\\.ts$" },
      to: { path: "^src/simulator/" },
    },
    {
      name: "simulator-only-palette-constants",
      severity: "error",
      comment: "The simulator imports the ground and palette's shared constants, not the bot.",
      from: { path: "^src/simulator/" },
      to: {
        path: "^src/",
        pathNot: `^src/simulator/|${GROUND}|^src/palette/(constants|providers-list|search-body|schemas|tags|rate-limits)\\.ts$`,
      },
    },
    {
      name: "no-slack-below-edge",
      severity: "error",
      comment:
        "Use cases return models; only the edge (and views/, for Block Kit types) knows Slack.",
      from: { path: `${USE_CASES}|^src/(palette|store|access|model)/|${GROUND}` },
      to: { path: "^@slack/|node_modules/@slack/" },
    },
    {
      name: "web-client-in-slack-only",
      severity: "error",
      comment: "Every Slack WebClient is built in slack/, with the base URL and the call counter.",
      from: { path: "^src/", pathNot: "^src/slack/" },
      to: { path: "node_modules/@slack/web-api/" },
    },
    {
      name: "bolt-at-the-slack-edge",
      severity: "error",
      comment: "Bolt is the Slack edge; only slack/ and the wiring in app/ know it.",
      from: { path: "^src/", pathNot: "^src/(slack|app)/" },
      to: { path: "node_modules/@slack/bolt/" },
    },
    {
      name: "declared-dependencies-only",
      severity: "error",
      comment: "A package src/ imports must be in package.json, not reached through another's.",
      from: { path: "^src/" },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
    {
      name: "src-not-tests",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
