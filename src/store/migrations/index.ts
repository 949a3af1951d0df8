import { audit } from "./001_audit.ts";
import { notify } from "./002_notify.ts";
import { launch } from "./003_launch.ts";
import { digest } from "./004_digest.ts";
import type { Migration } from "./migration.ts";

export const MIGRATIONS: Migration[] = [audit, ...notify, ...launch, ...digest];
