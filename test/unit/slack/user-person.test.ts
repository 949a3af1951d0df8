import { describe, expect, it } from "vitest";
import { slackHomeOf, slackPersonOf } from "../../../src/slack/user-email.ts";

/** users.info as Slack answers it, for one user */
const usersAnswering = (user: Record<string, unknown>) =>
  ({ users: { info: async () => ({ ok: true, user }) } }) as never;
const authAnswering = (answer: Record<string, unknown>) => {
  let calls = 0;
  const client = {
    auth: {
      test: async () => {
        calls++;
        return { ok: true, ...answer };
      },
    },
  } as never;
  return { client, calls: () => calls };
};

describe("slackPersonOf: LINK_METHOD=email's view of a Slack user", () => {
  const home = slackHomeOf(authAnswering({ team_id: "T111", enterprise_id: "E1" }).client);

  it("a member of the bot's workspace: their e-mail", async () => {
    const of = slackPersonOf(
      usersAnswering({ team_id: "T111", profile: { email: "a@x.io" } }),
      home,
    );
    expect(await of("U1")).toEqual({ email: "a@x.io" });
  });

  it("another workspace of the same Enterprise Grid org is not an outsider", async () => {
    const of = slackPersonOf(
      usersAnswering({
        team_id: "T222",
        enterprise_user: { enterprise_id: "E1" },
        profile: { email: "b@x.io" },
      }),
      home,
    );
    expect(await of("U2")).toEqual({ email: "b@x.io" });
  });

  it("another workspace, or a stranger: an outsider, no e-mail", async () => {
    const other = slackPersonOf(
      usersAnswering({ team_id: "T999", profile: { email: "c@x.io" } }),
      home,
    );
    expect(await other("U3")).toEqual({ outsider: "other workspace" });
    const stranger = slackPersonOf(
      usersAnswering({ team_id: "T111", is_stranger: true, profile: { email: "d@x.io" } }),
      home,
    );
    expect(await stranger("U4")).toEqual({ outsider: "stranger" });
  });

  it("SLACK_TEAM_ID, when set, is the home without asking auth.test; auth.test is asked once", async () => {
    const auth = authAnswering({ team_id: "T111" });
    const configured = slackHomeOf(auth.client, "T555");
    expect(await configured()).toEqual({ teamId: "T555" });
    expect(auth.calls()).toBe(0);
    const asked = slackHomeOf(auth.client);
    await asked();
    await asked();
    expect(auth.calls()).toBe(1);
  });
});
