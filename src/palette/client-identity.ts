import { Secret } from "../secret.ts";
import type { PaletteIdentityApi, PaletteUser } from "./api.ts";
import { type ClientCore, seg } from "./client-core.ts";
import {
  apiKeyCreatedSchema,
  apiKeysSchema,
  type PaletteUserRecord,
  userInfoSchema,
  userSchema,
  usersSummarySchema,
} from "./schemas.ts";

/**
 * The Palette client's identity calls (issue 20: a Slack user acting as their own Palette user):
 * whose credential this is, a user by UID or e-mail, and the API keys minted for a user. Apart
 * from PaletteApi's calls as PaletteIdentityApi is apart from PaletteApi.
 */

/** A user record as the bot names its user: display name, else e-mail, else UID. */
function paletteUser(record: PaletteUserRecord): PaletteUser {
  const email = record.spec?.emailId ?? undefined;
  const full = [record.spec?.firstName, record.spec?.lastName].filter(Boolean).join(" ");
  return {
    uid: record.metadata.uid,
    name: record.metadata.name || full || email || record.metadata.uid,
    ...(email ? { email } : {}),
  };
}

type IdentityCalls = Pick<
  PaletteIdentityApi,
  "whoAmI" | "getUser" | "findUserByEmail" | "createApiKey" | "deleteApiKey" | "apiKeysNamed"
>;

export function identityCalls({ call, exchange, counted }: ClientCore): IdentityCalls {
  return {
    async whoAmI() {
      const info = await call({ method: "GET", path: "/v1/users/info" }, userInfoSchema);
      return {
        userUid: info.userUid,
        orgName: info.orgName ?? undefined,
        tenantUid: info.tenantUid ?? undefined,
      };
    },

    async getUser(uid) {
      return paletteUser(await call({ method: "GET", path: `/v1/users/${seg(uid)}` }, userSchema));
    },

    async findUserByEmail(email) {
      const result = await call(
        {
          method: "POST",
          path: "/v1/users/summary",
          body: { filter: { emailId: { eq: email, ignoreCase: true } } },
        },
        usersSummarySchema,
      );
      const wanted = email.toLowerCase();
      const match = (result.items ?? []).find(
        (user) => user.spec?.emailId?.toLowerCase() === wanted,
      );
      return match ? paletteUser(match) : undefined;
    },

    async createApiKey(userUid, expiry, name) {
      const created = await call(
        {
          method: "POST",
          path: "/v1/apiKeys",
          body: { metadata: { name }, spec: { userUid, expiry: expiry.toISOString() } },
          requestClass: "create",
        },
        apiKeyCreatedSchema,
      );
      return { uid: created.uid, apiKey: new Secret(created.apiKey) };
    },

    async apiKeysNamed(name) {
      const listed = await call({ method: "GET", path: "/v1/apiKeys" }, apiKeysSchema);
      return (listed.items ?? [])
        .filter((key) => key.metadata.name === name)
        .map((key) => key.metadata.uid);
    },

    async deleteApiKey(uid) {
      return counted(async () => {
        await exchange({
          method: "DELETE",
          path: `/v1/apiKeys/${seg(uid)}`,
          requestClass: "delete",
        });
      });
    },
  };
}
