import { createSender, type Sender } from "./deliver.ts";
import { createPoller, type Poller, type PollerOptions } from "./poller.ts";
import type { SlackPoster } from "./slack-port.ts";

export { adoptCard } from "./adopt-card.ts";
export type { Sender } from "./deliver.ts";
export type { Poller } from "./poller.ts";

export interface Notifications {
  poller: Poller;
  sender: Sender;
  start(): void;
  stop(): Promise<void>;
}

/**
 * The poller and the sender wired together (a committed cycle wakes the sender). `slack` is
 * `createSlackPoster(...)` for Slack or `createConsolePoster()` for the console/demo.
 */
export function createNotifications(
  options: Pick<PollerOptions, "palette" | "db" | "clock" | "logger" | "projects" | "schedule"> & {
    slack: SlackPoster;
  },
): Notifications {
  const logger = options.logger.child({ component: "notify" });
  const sender = createSender({
    db: options.db,
    slack: options.slack,
    clock: options.clock,
    logger,
  });
  const poller = createPoller({
    palette: options.palette,
    db: options.db,
    clock: options.clock,
    logger,
    projects: options.projects,
    schedule: options.schedule,
    onCommitted: () => sender.wake(),
  });
  return {
    poller,
    sender,
    start() {
      sender.start();
      poller.start();
    },
    async stop() {
      await poller.stop();
      await sender.stop();
    },
  };
}
