/**
 * The likely-cause rule of `/palette why`; it lives in src/model/likely-cause.ts (pure, on the
 * ground floor) so the poll's notifications use the same one.
 */
export {
  CAUSE_WINDOW_MS,
  type ClusterNow,
  isTroubled,
  type LikelyCause,
  likelyCause,
  troubleStart,
} from "../model/likely-cause.ts";
