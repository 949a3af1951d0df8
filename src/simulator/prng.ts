/**
 * A small seeded PRNG (mulberry32) so the same seed always yields the same fleet; Math.random
 * would make tests and benchmarks irreproducible.
 */
export interface Rng {
  /** uniform in [0, 1) */
  next(): number;
  int(minInclusive: number, maxInclusive: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  /** lowercase hex of `length` characters, e.g. a 24-character Palette UID */
  hex(length: number): string;
}

const HEX_CODES = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));

export function createRng(seed: number): Rng {
  let state = seed >>> 0 || 0x9e3779b9;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error("pick from an empty list");
      return item;
    },
    chance: (probability) => next() < probability,
    hex: (length) => {
      // String.fromCharCode gives a flat string; `+=` would build ropes that Map keys flatten later
      const codes = new Array<number>(length);
      let bits = 0;
      let left = 0;
      for (let i = 0; i < length; i++) {
        if (left === 0) {
          bits = Math.floor(next() * 0x100000000);
          left = 8;
        }
        codes[i] = HEX_CODES[bits & 15] as number;
        bits >>>= 4;
        left -= 1;
      }
      return String.fromCharCode(...codes);
    },
  };
}

/** A stable 32-bit hash of a string (FNV-1a), to derive per-cluster seeds for lazy details. */
export function hashString(text: string, seed = 0): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
