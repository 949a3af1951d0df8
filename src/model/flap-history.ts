/** One cluster's recent transitions, kept between polls to tell flapping from change. */
export interface FlapHistory {
  /** ms timestamps of recent state/health transitions, oldest first */
  transitions: number[];
  /** a flapping report went out; quiet until the cluster is stable for a whole window */
  reported: boolean;
}
