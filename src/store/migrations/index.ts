import { audit } from "./001_audit.ts";
import { notify } from "./002_notify.ts";
import { launch } from "./003_launch.ts";
import { onCall } from "./004_on_call.ts";
import { digest } from "./005_digest.ts";
import { listingOrder } from "./006_listing_order.ts";
import { snapshotUidIndex } from "./007_snapshot_uid_index.ts";
import { conversation } from "./008_conversation.ts";
import { identityLinks } from "./009_identity_links.ts";
import { launchPaletteUser } from "./010_launch_palette_user.ts";
import { day2 } from "./011_day2.ts";
import { auditColumns } from "./012_audit_columns.ts";
import { changePlans } from "./013_change_plans.ts";
import { freezeAnnouncedIn } from "./014_freeze_announced_in.ts";
import { radar } from "./015_radar.ts";
import { changeHeartbeat } from "./016_change_heartbeat.ts";
import { changeCardsOwed } from "./017_change_cards_owed.ts";
import { radarNoticesCluster } from "./018_radar_notices_cluster.ts";
import { radarNoticeRetry } from "./019_radar_notice_retry.ts";
import { changesClusterUid } from "./020_changes_cluster_uid.ts";
import { assistant } from "./021_assistant.ts";
import { radarRollups } from "./022_radar_rollups.ts";
import { radarRollupVersion } from "./023_radar_rollup_version.ts";
import { changeUnconfirmedAt } from "./024_change_unconfirmed_at.ts";
import { postAttempts } from "./025_post_attempts.ts";
import { edgeHosts } from "./026_edge_hosts.ts";
import { edgeRadarMarks } from "./027_edge_radar_marks.ts";
import { changeCardLeases } from "./028_change_card_leases.ts";
import { edgeRadarNotices } from "./029_edge_radar_notices.ts";
import { assistantQuestions } from "./030_assistant_questions.ts";
import { assistantTurnGrounds } from "./031_assistant_turn_grounds.ts";
import type { Migration } from "./migration.ts";

export const MIGRATIONS: Migration[] = [
  audit,
  ...notify,
  ...launch,
  ...onCall,
  ...digest,
  ...listingOrder,
  ...snapshotUidIndex,
  ...conversation,
  ...identityLinks,
  ...launchPaletteUser,
  ...day2,
  auditColumns,
  changePlans,
  freezeAnnouncedIn,
  radar,
  changeHeartbeat,
  changeCardsOwed,
  radarNoticesCluster,
  radarNoticeRetry,
  changesClusterUid,
  assistant,
  radarRollups,
  radarRollupVersion,
  changeUnconfirmedAt,
  postAttempts,
  edgeHosts,
  edgeRadarMarks,
  changeCardLeases,
  edgeRadarNotices,
  assistantQuestions,
  assistantTurnGrounds,
];
