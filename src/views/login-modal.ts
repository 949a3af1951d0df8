import type { ModalView } from "@slack/types";
import { section } from "./blocks.ts";
import { code } from "./mrkdwn.ts";

/** `/palette login`: the person pastes a personal Palette API key (IDENTITY=linked, LINK_METHOD=key). */

export const LOGIN_CALLBACK_ID = "palette_login";
export const LOGIN_KEY_FIELD = "palette_api_key";

const plain = (text: string) => ({ type: "plain_text" as const, text });

export function loginModal(input: { consoleUrl: string }): ModalView {
  return {
    type: "modal",
    callback_id: LOGIN_CALLBACK_ID,
    title: plain("Link Palette"),
    submit: plain("Link"),
    close: plain("Cancel"),
    blocks: [
      section(
        `Commands that act (a kubeconfig, and next a launch) will run as *your* Palette user, so Palette's own roles decide and its audit names you. Create a personal API key in the Palette console (${code(input.consoleUrl)}, *your user menu → API keys*) and paste it here.`,
      ),
      {
        type: "input",
        block_id: LOGIN_KEY_FIELD,
        label: plain("Palette API key"),
        element: {
          type: "plain_text_input",
          action_id: LOGIN_KEY_FIELD,
          placeholder: plain("paste the whole key"),
          max_length: 512,
        },
        hint: plain(
          "Stored encrypted (AES-256-GCM); never shown, logged or posted. /palette logout deletes it.",
        ),
      },
    ],
  };
}
