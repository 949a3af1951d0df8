/**
 * A global setup shared by every vitest project of one run. Vitest runs each project's global
 * setup on its own, in the one main process; the run's temp dir and its PostgreSQL broker must be
 * made once, before the first project starts, and undone once, after the last one ends. The first
 * caller starts it; later callers get the same value; the teardown runs when the last one leaves.
 */
interface Shared<T> {
  value: Promise<{ value: T; teardown: () => Promise<void> }>;
  users: number;
}

const registry = globalThis as unknown as {
  __paletteChatopsOncePerRun?: Map<string, Shared<unknown>>;
};

export async function oncePerRun<T>(
  key: string,
  start: () => Promise<{ value: T; teardown: () => Promise<void> }>,
): Promise<{ value: T; leave: () => Promise<void> }> {
  registry.__paletteChatopsOncePerRun ??= new Map();
  const shared = registry.__paletteChatopsOncePerRun;
  let entry = shared.get(key) as Shared<T> | undefined;
  if (entry === undefined) {
    entry = { value: start(), users: 0 };
    shared.set(key, entry as Shared<unknown>);
  }
  entry.users += 1;
  const started = await entry.value;
  const own = entry;
  return {
    value: started.value,
    leave: async () => {
      own.users -= 1;
      if (own.users > 0) return;
      shared.delete(key);
      await started.teardown();
    },
  };
}
