/** One schema step; applied once, in order, inside a transaction. */
export interface Migration {
  id: number;
  name: string;
  up: string;
}
