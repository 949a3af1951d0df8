/**
 * The layering of src/, checked by `npm run lint`. Imports only go down:
 *   edge      slack/ console/ http/ app/ main.ts
 *   assistant assistant/ (the grounded assistant: its reads are the registry's verbs)
 *   registry  registry/ (the table of every verb, and dispatch)
 *   use cases commands/ launch/ notify/ conversation/ identity/ changes/ why/ radar/ edge/
 *   kit       verb-kit/ (what every verb needs: the command context, replies, cluster lookup, parsing)
 *   services  palette/ store/ views/ access/
 *   ground    model/ config.ts log.ts clock.ts secret.ts proxy.ts
 * simulator/ stands beside the bot: it may use the ground and palette's shared constants only.
 *
 * Inside those layers every room (a folder under src/, or a file directly in it) has a floor in
 * FLOORS, top first. A room imports only rooms on lower floors, never one on its own floor, so two
 * rooms can never import each other, however many files the cycle runs through (the no-circular
 * rule sees only file cycles). A new folder gets a floor here before it may import anything.
 */
const EDGE = "^src/(slack|console|http|app)/|^src/main\\.ts$";
const REGISTRY = "^src/registry/";
const USE_CASES = "^src/(commands|launch|notify|conversation|identity|changes|why|radar|edge)/";
const KIT = "^src/verb-kit/";
const SERVICES = "^src/(palette|store|views|access)/";
const GROUND = "^src/(model/|config\\.ts$|log\\.ts$|clock\\.ts$|secret\\.ts$|proxy\\.ts$)";

/** Top floor first. */
const FLOORS = [
  ["main.ts"],
  ["app"],
  ["slack", "console"],
  ["http"],
  // the assistant (issue 33) runs its reads through the registry's dispatcher
  ["assistant"],
  ["registry"],
  // edge/ (issue 39): the edge fleet watched, told through notify/'s outbox like the radar
  ["conversation", "launch", "why", "radar", "edge"],
  ["changes", "commands"],
  ["identity", "notify"],
  ["verb-kit"],
  ["views"],
  ["store", "palette", "access"],
];
/** the ground's files may import each other (a file cycle among them is still caught) */
const GROUND_ROOMS = ["model", "config.ts", "log.ts", "clock.ts", "secret.ts", "proxy.ts"];
/** beside the house: its own rules below say what it may use */
const BESIDE = ["simulator"];

const roomPath = (rooms) =>
  `^src/(${rooms.map((room) => room.replace(/\./g, "\\.")).join("|")})(/|$)`;

/** one rule per room: nothing on its own floor or above, but itself */
const floorRules = FLOORS.flatMap((floor, level) =>
  floor.map((room) => ({
    name: "rooms-only-down",
    severity: "error",
    comment: `src/${room} is on floor ${level + 1} of FLOORS (.dependency-cruiser.cjs): it imports only rooms on lower floors, since two rooms that import each other are one room with a wall through it.`,
    from: { path: roomPath([room]) },
    to: {
      path: roomPath(
        FLOORS.slice(0, level + 1)
          .flat()
          .filter((other) => other !== room),
      ),
    },
  })),
);

module.exports = {
  forbidden: [
    ...floorRules,
    {
      name: "room-without-a-floor",
      severity: "error",
      comment:
        "Every folder under src/ has a floor in FLOORS (.dependency-cruiser.cjs): give the new one its floor there.",
      from: { path: "^src/", pathNot: roomPath([...FLOORS.flat(), ...GROUND_ROOMS, ...BESIDE]) },
      to: {},
    },
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
      comment:
        "The use cases serve every edge; they import no edge, nor the verb registry above them.",
      from: { path: USE_CASES },
      to: { path: `${EDGE}|${REGISTRY}` },
    },
    {
      name: "kit-not-up",
      severity: "error",
      comment: "verb-kit/ is what every verb stands on: it knows no verb, use case or edge.",
      from: { path: KIT },
      to: { path: `${EDGE}|${REGISTRY}|${USE_CASES}` },
    },
    {
      name: "services-not-up",
      severity: "error",
      comment: "palette/, store/, views/ and access/ know nothing of use cases or edges.",
      from: { path: SERVICES },
      to: { path: `${EDGE}|${REGISTRY}|${USE_CASES}|${KIT}` },
    },
    {
      name: "ground-not-up",
      severity: "error",
      comment: "model/, config, log, clock and secret are what every layer stands on.",
      from: { path: GROUND },
      to: { path: `${EDGE}|${REGISTRY}|${USE_CASES}|${KIT}|${SERVICES}|^src/simulator/` },
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
        pathNot: `^src/simulator/|${GROUND}|^src/palette/(constants|providers-list|search-body|edge-search-body|schemas|tags|rate-limits)\\.ts$`,
      },
    },
    {
      name: "no-slack-below-edge",
      severity: "error",
      comment:
        "Use cases return models; only the edge (and views/, for Block Kit types) knows Slack.",
      from: { path: `${USE_CASES}|${KIT}|^src/(palette|store|access|model)/|${GROUND}` },
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
