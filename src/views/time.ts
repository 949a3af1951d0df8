/** "3d 4h", "12m", "just now": how long ago `iso` was, by the injected clock's `now`. */
export function formatAge(iso: string | null | undefined, now: number): string | undefined {
  if (!iso) return undefined;
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return undefined;
  const seconds = Math.floor((now - then) / 1000);
  if (seconds < 0) return "in the future (clock skew)";
  if (seconds < 60) return "just now";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${minutes % 60}m`;
  const days = Math.floor(hours / 24);
  return `${days}d ${hours % 24}h`;
}
