import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { IdentityStore } from "../store/identities.ts";
import { IdentityCipher } from "../store/identity-cipher.ts";
import { openStore } from "../store/open.ts";

/**
 * `palette-chatops rotate-identity-key`: with the new key in IDENTITY_KEY and the old one in
 * IDENTITY_KEY_PREVIOUS, re-seals every linked key under the new one. Afterwards the old key
 * opens nothing and IDENTITY_KEY_PREVIOUS can be dropped. Prints counts, never a key.
 */
export async function rotateIdentityKey(
  config: Config,
  clock: Clock,
  print: (line: string) => void,
): Promise<number> {
  const keys = config.identity.keys;
  if (!keys) {
    print("rotate-identity-key: IDENTITY_KEY is not set; there is nothing to re-seal with");
    return 2;
  }
  const db = await openStore(config.stateDb);
  try {
    const store = new IdentityStore(db, new IdentityCipher(keys.current, keys.previous), clock);
    const { resealed, unreadable } = await store.reseal();
    print(`rotate-identity-key: ${resealed} link(s) re-sealed under the current IDENTITY_KEY`);
    if (unreadable > 0) {
      print(
        `rotate-identity-key: ${unreadable} link(s) were sealed under a key neither IDENTITY_KEY nor IDENTITY_KEY_PREVIOUS is; those people must /palette login again`,
      );
      return 1;
    }
    return 0;
  } finally {
    await db.close();
  }
}
