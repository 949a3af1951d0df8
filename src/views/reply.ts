import type { KnownBlock } from "@slack/types";
import type { ChannelDigestPayload } from "../model/channel-digest.ts";
import type { UndeliveredGroup } from "../model/notification.ts";
import type { Subscription } from "../model/subscription.ts";
import { type AlertsData, type AlertsPaging, alertGroupsBlocks, alertsBlocks } from "./alerts.ts";
import { type ChangeChoiceData, changeChoiceBlocks } from "./change.ts";
import { channelDigestBlocks } from "./channel-digest.ts";
import { type CardEnv, type ClusterCardData, clusterCardBlocks } from "./cluster-card.ts";
import { type ClusterChoiceData, clusterChoiceBlocks } from "./cluster-choice.ts";
import {
  type ClusterGroupsData,
  type ClusterListData,
  clusterGroupsBlocks,
  clusterListBlocks,
} from "./cluster-list.ts";
import { type EdgeHostCardData, edgeHostCardBlocks } from "./edge-host-card.ts";
import { type EdgeHostGroup, edgeHostListBlocks } from "./edge-host-list.ts";
import { type HelpEntry, type HelpGroup, helpBlocks, helpOverviewBlocks } from "./help.ts";
import { type HoldEntry, holdListBlocks } from "./holds.ts";
import { errorBlocks, noticeBlocks, usageBlocks } from "./message.ts";
import { type NodeTableData, nodeTableBlocks } from "./node-table.ts";
import { subscriptionListBlocks } from "./notification-subscriptions.ts";
import { type RiskRow, type RisksFilter, risksListBlocks } from "./risk.ts";
import { type WhyData, whyBlocks } from "./why.ts";
import { type WhyEdgeData, whyEdgeBlocks } from "./why-edge.ts";
import { type WorkloadsData, workloadsBlocks } from "./workloads.ts";

/**
 * The screens a command can answer with, as plain data. Commands build these; this module alone
 * turns them into Block Kit, so nothing above views/ knows Slack's block format. Every mrkdwn
 * string in a screen is already escaped by whoever built it.
 */
const SCREENS = {
  clusterList: (data: ClusterListData) => clusterListBlocks(data),
  clusterGroups: (data: ClusterGroupsData) => clusterGroupsBlocks(data),
  clusterCard: (data: { card: ClusterCardData; env: CardEnv }) =>
    clusterCardBlocks(data.card, data.env),
  clusterChoice: (data: ClusterChoiceData) => clusterChoiceBlocks(data),
  nodeTable: (data: NodeTableData) => nodeTableBlocks(data),
  edgeHostCard: (data: EdgeHostCardData) => edgeHostCardBlocks(data),
  edgeHostList: (data: { groups: readonly EdgeHostGroup[]; filter: string }) =>
    edgeHostListBlocks(data),
  workloads: (data: WorkloadsData) => workloadsBlocks(data),
  alerts: (data: AlertsData & AlertsPaging) => alertsBlocks(data),
  alertGroups: (data: { projects: readonly AlertsData[] } & AlertsPaging) =>
    alertGroupsBlocks(data),
  help: (data: { entries: readonly HelpEntry[]; preface?: string }) => [
    ...(data.preface ? noticeBlocks(data.preface) : []),
    ...helpBlocks(data.entries),
  ],
  helpOverview: (data: { groups: readonly HelpGroup[]; preface?: string }) => [
    ...(data.preface ? noticeBlocks(data.preface) : []),
    ...helpOverviewBlocks(data.groups),
  ],
  subscriptions: (data: {
    subscriptions: readonly Subscription[];
    /** what did not reach the channel, by why */
    undelivered?: readonly UndeliveredGroup[];
    preface?: string;
  }) => [
    ...(data.preface ? noticeBlocks(data.preface) : []),
    ...subscriptionListBlocks(data.subscriptions, data.undelivered),
  ],
  channelDigest: (data: ChannelDigestPayload) => channelDigestBlocks(data),
  holdList: (data: { holds: readonly HoldEntry[] }) => holdListBlocks(data),
  changeChoice: (data: ChangeChoiceData) => changeChoiceBlocks(data),
  why: (data: WhyData) => whyBlocks(data),
  whyEdge: (data: WhyEdgeData) => whyEdgeBlocks(data),
  risks: (data: { rows: readonly RiskRow[]; filter: RisksFilter }) =>
    risksListBlocks(data.rows, data.filter),
  error: (data: { mrkdwn: string; hint?: string }) => errorBlocks(data.mrkdwn, data.hint),
  notice: (data: { mrkdwn: string; hint?: string }) => noticeBlocks(data.mrkdwn, data.hint),
  usage: (data: { problem: string; usage: string; suggestion?: string }) =>
    usageBlocks(data.problem, data.usage, data.suggestion),
} satisfies Record<string, (data: never) => KnownBlock[]>;

type Screens = typeof SCREENS;
export type ScreenName = keyof Screens;

/** One screen and its data, e.g. `{ screen: "clusterList", data: { items, scope, tags } }`. */
export type ReplyView = {
  [Name in ScreenName]: { screen: Name; data: Parameters<Screens[Name]>[0] };
}[ScreenName];

export function replyBlocks(view: ReplyView): KnownBlock[] {
  const render = SCREENS[view.screen] as (data: unknown) => KnownBlock[];
  return render(view.data);
}
