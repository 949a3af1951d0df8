import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { Secret } from "../secret.ts";

/**
 * AES-256-GCM for the API keys people link (issue 20). A stored value is
 * `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts): the key id names which IDENTITY_KEY
 * sealed it, so a second key can be added and old rows re-sealed; the Slack user ID is the
 * associated data, so a row copied onto another person's does not open.
 */

const VERSION = "v1";

export class IdentityCipher {
  readonly #keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(current: Secret, previous?: Secret) {
    this.currentKeyId = this.#add(current);
    if (previous) this.#add(previous);
  }

  #add(secret: Secret): string {
    const key = Buffer.from(secret.reveal(), "base64");
    if (key.length !== 32) throw new Error("an identity key is 32 bytes, base64");
    const id = createHash("sha256").update(key).digest("hex").slice(0, 8);
    this.#keys.set(id, key);
    return id;
  }

  seal(plaintext: string, owner: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#keys.get(this.currentKeyId)!, iv);
    cipher.setAAD(Buffer.from(owner, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), body].map((part) => part.toString("base64url"));
    return [VERSION, this.currentKeyId, ...parts].join(".");
  }

  /** The plaintext, or undefined when no key here opens it (unknown key id, tampered, wrong owner). */
  open(sealed: string, owner: string): string | undefined {
    const [version, keyId, iv, tag, body] = sealed.split(".");
    const key = keyId ? this.#keys.get(keyId) : undefined;
    if (version !== VERSION || !key || !iv || !tag || body === undefined) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(owner, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([
        decipher.update(Buffer.from(body, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      return undefined;
    }
  }

  /** the key id a sealed value names */
  static keyIdOf(sealed: string): string | undefined {
    return sealed.split(".")[1];
  }
}
