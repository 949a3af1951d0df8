import { afterEach, describe, expect, it } from "vitest";
import { RUN_COMMAND_ACTION } from "../../src/model/command-text.ts";
import { OTHER_TEAM_REFUSAL } from "../../src/slack/home-team.ts";
import type { Reply } from "../../src/verb-kit/types.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/** SLACK_TEAM_ID with signed requests built from Slack's captured payloads (team T111). */
describe("SLACK_TEAM_ID limits the bot to its home workspace", () => {
  let harness: BotHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  const recordingDispatch =
    (seen: string[]) =>
    async (text: string): Promise<Reply> => {
      seen.push(text);
      return {
        kind: "message",
        text: "ok",
        view: { screen: "notice", data: { mrkdwn: "ok" } },
        visibility: "ephemeral",
      };
    };

  it("answers members of the home workspace as before", async () => {
    const seen: string[] = [];
    harness = await startBot({ homeTeamId: "T111", dispatch: recordingDispatch(seen) });
    const answer = await harness.command("help");
    expect(answer.status).toBe(200);
    await harness.responses(answer.responseId);
    expect(seen).toEqual(["help"]);
  });

  it("refuses a command and a button from another workspace privately, without running them", async () => {
    const seen: string[] = [];
    harness = await startBot({ homeTeamId: "T999", dispatch: recordingDispatch(seen) });
    const command = await harness.command("clusters");
    expect(command.status).toBe(200);
    const [reply] = await harness.responses(command.responseId);
    expect(reply?.body).toMatchObject({ response_type: "ephemeral", text: OTHER_TEAM_REFUSAL });

    const click = await harness.click(`${RUN_COMMAND_ACTION}:x`, "clusters");
    expect(click.status).toBe(200);
    const [clickReply] = await harness.responses(click.responseId);
    expect(clickReply?.body).toMatchObject({ text: OTHER_TEAM_REFUSAL });
    expect(seen).toEqual([]);
  });
});
