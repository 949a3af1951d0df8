import { z } from "zod";
import { PROJECT_FIELD, type ProjectChoice } from "../../../views/launch-modal.ts";

const projectBlockSchema = z.object({
  block_id: z.literal(PROJECT_FIELD),
  element: z.object({
    type: z.string(),
    options: z
      .array(z.object({ value: z.string(), text: z.object({ text: z.string() }) }))
      .optional(),
  }),
});

/**
 * The project choices the modal was opened with, read back from its own project block, so a
 * provider change rebuilds the form without asking Palette again.
 */
export function projectsInView(blocks: unknown): ProjectChoice[] {
  if (!Array.isArray(blocks)) return [];
  for (const block of blocks) {
    const parsed = projectBlockSchema.safeParse(block);
    if (!parsed.success) continue;
    if (parsed.data.element.type !== "static_select") return [];
    return (parsed.data.element.options ?? []).map((o) => {
      const suffix = ` (${o.value})`;
      const name = o.text.text.endsWith(suffix) ? o.text.text.slice(0, -suffix.length) : undefined;
      return { uid: o.value, name };
    });
  }
  return [];
}
