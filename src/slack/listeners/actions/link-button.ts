import type { App } from "@slack/bolt";

/**
 * Action ids of URL buttons ("Open in Palette"); src/views/blocks.ts `urlButton` makes them. Launch
 * cards posted by earlier versions carry `launch_open_in_palette`, still acknowledged here.
 */
export const LINK_ACTION_PATTERN = /^(palette_link:|launch_open_in_palette$)/;

/**
 * A URL button opens its link in the browser, but Slack still sends a `block_actions` and shows
 * a warning next to the button unless the app acknowledges it. Nothing else to do.
 */
export function registerLinkButton(app: App): void {
  app.action(LINK_ACTION_PATTERN, async ({ ack }) => {
    await ack();
  });
}
