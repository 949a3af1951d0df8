// The ack bench's floor: Bolt with the bot's receiver settings and a /palette listener that only
// acks. Plain JavaScript run by node as its own process, with the image's node flags and
// NODE_OPTIONS, as the compiled bot is: the ratio then measures the bot's own code, nothing else.
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";

const { ACK_FLOOR_PORT, SLACK_SIGNING_SECRET, SLACK_BOT_TOKEN, SLACK_API_URL } = process.env;
const quiet = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => LogLevel.ERROR,
  setName() {},
};
const receiver = new HTTPReceiver({
  signingSecret: SLACK_SIGNING_SECRET,
  endpoints: "/slack/events",
  logger: quiet,
  logLevel: LogLevel.ERROR,
  signatureVerification: true,
  processBeforeResponse: false,
});
const app = new App({
  token: SLACK_BOT_TOKEN,
  receiver,
  logger: quiet,
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl: SLACK_API_URL },
  convoStore: false,
  deferInitialization: true,
});
app.command("/palette", async ({ ack }) => {
  await ack();
});
await app.init();
await app.start(Number(ACK_FLOOR_PORT));
process.stdout.write("listening\n");
process.on("SIGTERM", () => {
  app.stop().finally(() => process.exit(0));
});
