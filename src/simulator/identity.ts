import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";

/**
 * Palette's users as far as the bot meets them: each has a role per project (viewer, editor,
 * admin) and API keys of their own, which may expire or be revoked. The service account behind
 * the simulator's credentials is a tenant admin. What a role allows follows Palette's built-in
 * project roles: a viewer reads, an editor also creates and deletes clusters and reads their
 * kubeconfigs.
 */

export type ProjectRole = "viewer" | "editor" | "admin";

export interface SimUser {
  uid: string;
  name: string;
  email: string;
  /** project UID → role; a tenant admin has every project */
  roles: Map<string, ProjectRole>;
  tenantAdmin: boolean;
}

interface SimApiKey {
  uid: string;
  userUid: string;
  /** epoch ms; undefined = never */
  expiresAt: number | undefined;
  revoked: boolean;
  /** metadata.name given at creation */
  name?: string;
}

/** The users every simulator has: two people with different rights, for tests and the demo. */
export function seedUsers(projects: readonly string[]): SimUser[] {
  const everywhere = (role: ProjectRole) => new Map(projects.map((uid) => [uid, role] as const));
  return [
    {
      uid: uidOf("viewer@example.com"),
      name: "Vera Viewer",
      email: "viewer@example.com",
      roles: everywhere("viewer"),
      tenantAdmin: false,
    },
    {
      uid: uidOf("editor@example.com"),
      name: "Eddie Editor",
      email: "editor@example.com",
      roles: everywhere("editor"),
      tenantAdmin: false,
    },
    {
      uid: uidOf("solo@example.com"),
      name: "Sol One-Project",
      email: "solo@example.com",
      roles: new Map(projects.slice(0, 1).map((uid) => [uid, "editor"] as const)),
      tenantAdmin: false,
    },
  ];
}

/** a Palette-shaped UID (24 hex) derived from a name, so seeds are stable */
function uidOf(seed: string): string {
  return createHash("sha256").update(seed).digest("hex").slice(0, 24);
}

export class UserDirectory {
  readonly #users = new Map<string, SimUser>();
  readonly #keys = new Map<string, SimApiKey>();

  constructor(
    private readonly clock: Clock,
    users: readonly SimUser[],
    /** the service account: a tenant admin whose key is the simulator's `apiKey` credential */
    readonly serviceAccount: SimUser,
  ) {
    for (const user of [serviceAccount, ...users]) this.#users.set(user.uid, user);
  }

  users(): SimUser[] {
    return [...this.#users.values()];
  }

  user(uid: string): SimUser | undefined {
    return this.#users.get(uid);
  }

  byEmail(email: string): SimUser | undefined {
    const wanted = email.toLowerCase();
    return this.users().find((user) => user.email.toLowerCase() === wanted);
  }

  /** A new API key for a user (POST /v1/apiKeys, or the control API for tests). */
  issueKey(userUid: string, expiresAt?: number, name?: string): { uid: string; apiKey: string } {
    if (!this.#users.has(userUid)) throw new Error(`no user ${userUid}`);
    const apiKey = `simkey-${randomBytes(18).toString("base64url")}`;
    const uid = randomBytes(12).toString("hex");
    this.#keys.set(apiKey, { uid, userUid, expiresAt, revoked: false, ...(name ? { name } : {}) });
    return { uid, apiKey };
  }

  /** GET /v1/apiKeys: the keys not deleted, a tenant admin's view all of them, a user's their own */
  listKeys(by: SimUser): Array<{ uid: string; name: string; userUid: string; expiresAt?: number }> {
    return [...this.#keys.values()]
      .filter((key) => !key.revoked && (by.tenantAdmin || key.userUid === by.uid))
      .map((key) => ({
        uid: key.uid,
        name: key.name ?? "",
        userUid: key.userUid,
        ...(key.expiresAt !== undefined ? { expiresAt: key.expiresAt } : {}),
      }));
  }

  /** DELETE /v1/apiKeys/{uid}, by its owner or a tenant admin; false when no such key */
  revoke(keyUid: string, by: SimUser): boolean {
    for (const key of this.#keys.values()) {
      if (key.uid === keyUid && (by.tenantAdmin || by.uid === key.userUid)) {
        key.revoked = true;
        return true;
      }
    }
    return false;
  }

  revokeKey(apiKey: string): boolean {
    const key = this.#keys.get(apiKey);
    if (!key) return false;
    key.revoked = true;
    return true;
  }

  /** The key's owner, or why not (unknown, expired, revoked). */
  holder(apiKey: string): { ok: true; user: SimUser } | { ok: false; reason: string } {
    const key = this.#keys.get(apiKey);
    if (!key) return { ok: false, reason: "the API key is not valid" };
    if (key.revoked) return { ok: false, reason: "the API key was revoked" };
    if (key.expiresAt !== undefined && this.clock.now() >= key.expiresAt) {
      return { ok: false, reason: "the API key has expired" };
    }
    const user = this.#users.get(key.userUid);
    return user ? { ok: true, user } : { ok: false, reason: "the API key's user is gone" };
  }

  /** live keys a user holds (tests: a minted key was deleted) */
  liveKeys(userUid: string): number {
    const now = this.clock.now();
    return [...this.#keys.values()].filter(
      (key) =>
        key.userUid === userUid &&
        !key.revoked &&
        (key.expiresAt === undefined || now < key.expiresAt),
    ).length;
  }
}

/** What a user may do in a project. */
export function roleIn(user: SimUser, projectUid: string): ProjectRole | undefined {
  return user.tenantAdmin ? "admin" : user.roles.get(projectUid);
}

export function mayWrite(role: ProjectRole | undefined): boolean {
  return role === "editor" || role === "admin";
}
