// A stand-in for Slack's Web API for the release smoke test: every method answers ok, auth.test
// with a bot identity, so the bot in the image can start and report ready without a workspace.
import { createServer } from "node:http";

const port = Number(process.argv[2] ?? 8081);
const identity = {
  url: "https://smoke.slack.com/",
  team: "smoke",
  user: "palette",
  team_id: "T0SMOKE",
  user_id: "U0SMOKE",
  bot_id: "B0SMOKE",
};

createServer((request, response) => {
  const method = (request.url ?? "").replace(/^\/api\//, "").split("?")[0];
  request.resume();
  request.on("end", () => {
    process.stdout.write(`fake slack: ${method}\n`);
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ ok: true, ...(method === "auth.test" ? identity : {}) }));
  });
}).listen(port, "127.0.0.1", () => process.stdout.write(`fake slack on 127.0.0.1:${port}\n`));
