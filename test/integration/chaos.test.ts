import { describe, expect, it } from "vitest";
import { describeUnobservable, runChaos, SHORT_RUN } from "../../bench/chaos/scenario.ts";

/**
 * The short chaos run (under a minute): the bot as its own process under Palette faults, listing
 * gaps, Slack windows (429, 503, invalid_auth, a hanging channel), SIGKILLs and token expiries.
 * `npm run chaos` is the long one; its figures are in docs/benchmarks.md.
 */
describe("chaos, short run", () => {
  it("loses nothing, announces nothing false, keeps order, answers every command", async () => {
    const report = await runChaos(SHORT_RUN);
    const { score, commands } = report;
    const summary = JSON.stringify({ score, commands, exits: report.exitNotes });
    // each change no committed poll could read, with the windows that make it so
    for (const line of describeUnobservable(report)) console.log(`chaos: ${line}`);
    const { unobservableChanges: _each, ...figures } = score;
    console.log(`chaos: score ${JSON.stringify(figures)}`);
    expect(score.changesMade, summary).toBe(SHORT_RUN.changes);
    // scored against what the bot committed (notify_events, issue 37 item 8): each committed move
    // in every channel subscribed to it, once
    expect(score.committed, summary).toBeGreaterThan(0);
    expect(score.lost, summary).toBe(0);
    // exactly once across the kills (issue 37): a post Slack took before a kill is found, not
    // re-sent; a message tied to no committed move counts here too
    expect(score.duplicated, summary).toBe(0);
    expect(score.falseAnnouncements, summary).toBe(0);
    expect(score.outOfOrder, summary).toBe(0);
    // a change no committed move carries is explained by the measured time no leader committed a
    // read while it lasted (or is a return to what the bot held); one a committed read saw is missed
    expect(score.missed, summary).toBe(0);
    // and that time is short: at most a tenth of the changes fell in it
    expect(score.unobservable - score.unchangedForBot, summary).toBeLessThanOrEqual(
      SHORT_RUN.changes / 10,
    );
    // a catch-up after a restart may come as a digest: it names its clusters, so they count
    expect(commands.failed, summary).toBe(0);
    expect(commands.answered, summary).toBeGreaterThan(0);
    // the faults really happened
    expect(report.kills).toBe(SHORT_RUN.kills);
    expect(
      report.palette.gaps + report.palette.resets + report.palette.rateLimited,
    ).toBeGreaterThan(0);
    // which windows meet traffic depends on timing; that some did does not
    const slackRefusals = Object.values(report.slackRefused).reduce((sum, n) => sum + n, 0);
    expect(slackRefusals, summary).toBeGreaterThan(0);
  }, 90_000);
});
